// The environment as the config layer reads it.
export type Env = Readonly<Record<string, string | undefined>>;

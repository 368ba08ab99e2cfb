export type Env = Readonly<Record<string, string | undefined>>;

/** The process environment as the config layer reads it (its own module, so key-store and key-command need not import credentials, which imports them). */
export type Env = Readonly<Record<string, string | undefined>>;

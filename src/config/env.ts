// The environment as the config layer reads it: its own module, so that the key stores and the
// credential resolution that uses them can both name it without importing each other (a cycle).
export type Env = Readonly<Record<string, string | undefined>>;

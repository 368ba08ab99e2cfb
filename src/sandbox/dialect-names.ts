// The names of the sandbox's wire dialects (dialects.ts holds what each answers): the saved state records one, so
// the state types (engine-state.ts) need the names without the tables.
export const SANDBOX_DIALECTS = ['reference', 'alpha', 'beta', 'gamma', 'delta', 'epsilon'] as const;
export type SandboxDialect = (typeof SANDBOX_DIALECTS)[number];

// The command tree: each declaration (cmd/specs.ts, data only) with its command's code, imported lazily by
// path when it runs. Nothing here imports command code: the front bundles only data.
import type { CommandModule, CommandSpec, InputOf } from './runner/command-spec.js';
import * as SPECS from './cmd/specs.js';

export * from './cmd/specs.js';

/** Each declaration's code (a subcommand's beside its parent's declaration), typed by that declaration: `run` takes exactly `InputOf<typeof spec>`. */
type Tree = {
  [K in keyof typeof SPECS]?: (typeof SPECS)[K] extends CommandSpec
    ? (() => Promise<CommandModule<InputOf<(typeof SPECS)[K]>>>) | Tree
    : never;
};

const tree = (code: Tree): CommandSpec[] =>
  Object.entries(code).map(([name, load]: [string, Tree | CommandSpec['load']]) => {
    const spec = SPECS[name as keyof Tree] as CommandSpec;
    return typeof load === 'function' ? { ...spec, load } : { ...spec, subcommands: tree(load!) };
  });

/** Every command with its code, in the order help, completions and the agent's tools list them. */
export const COMMANDS: readonly CommandSpec[] = tree({
  MARKETS: () => import('./cmd/book/markets.js'),
  PRICE: () => import('./cmd/trade/price.js'),
  QUOTE: () => import('./cmd/trade/quote.js'),
  OPEN: () => import('./cmd/trade/open.js'),
  ADD: () => import('./cmd/trade/change.js').then((module) => module.add),
  REDUCE: () => import('./cmd/trade/change.js').then((module) => module.reduce),
  CLOSE: () => import('./cmd/trade/close.js'),
  HEDGES: () => import('./cmd/book/hedges.js'),
  HISTORY: () => import('./cmd/book/history.js'),
  POSITIONS: () => import('./cmd/book/positions.js'),
  ACCOUNT: () => import('./cmd/book/account.js'),
  MATURITIES: () => import('./cmd/book/maturities.js'),
  ROLL: () => import('./cmd/trade/roll.js'),
  LOGIN: () => import('./cmd/setup/login.js'),
  LOGOUT: () => import('./cmd/setup/logout.js'),
  PROFILE: {
    PROFILE_LIST: () => import('./cmd/setup/profile-list.js'),
    PROFILE_USE: () => import('./cmd/setup/profile-use.js'),
    PROFILE_REMOVE: () => import('./cmd/setup/profile-remove.js'),
    PROFILE_RESET_WIRE: () => import('./cmd/setup/profile-reset-wire.js'),
  },
  WHOAMI: () => import('./cmd/setup/whoami.js'),
  DOCTOR: () => import('./cmd/setup/doctor.js'),
  PLAN: () => import('./cmd/automation/plan.js'),
  APPLY: () => import('./cmd/automation/apply.js'),
  KEEP: {
    KEEP_RUN: () => import('./cmd/automation/keep.js'),
    KEEP_STATUS: () => import('./cmd/automation/keep-status.js'),
  },
  EXPOSURES: () => import('./cmd/automation/exposures.js'),
  REPORT: () => import('./cmd/book/report.js'),
  JOURNAL: {
    JOURNAL_LIST: () => import('./cmd/journal/journal-list.js'),
    JOURNAL_SHOW: () => import('./cmd/journal/journal-show.js'),
    JOURNAL_RESOLVE: () => import('./cmd/journal/journal-resolve.js'),
    JOURNAL_MIGRATE: () => import('./cmd/journal/journal-migrate.js'),
  },
  RESUME: () => import('./cmd/journal/resume.js'),
  ACCT: {
    ACCT_DESIGNATE: () => import('./cmd/acct/designate.js'),
    ACCT_RATES: () => import('./cmd/acct/rates.js'),
    ACCT_TEST: () => import('./cmd/acct/periods.js').then((module) => module.test),
    ACCT_EVENT: () => import('./cmd/acct/event.js'),
    ACCT_RESERVE: () => import('./cmd/acct/periods.js').then((module) => module.reserve),
    ACCT_JOURNAL: () => import('./cmd/acct/periods.js').then((module) => module.journal),
    ACCT_LOG: () => import('./cmd/acct/log.js'),
    ACCT_CLOSE: () => import('./cmd/acct/periods.js').then((module) => module.close),
    ACCT_LIST: () => import('./cmd/acct/inventory.js').then((module) => module.list),
    ACCT_SHOW: () => import('./cmd/acct/inventory.js').then((module) => module.show),
    ACCT_ENTITIES: () => import('./cmd/acct/inventory.js').then((module) => module.entities),
    ACCT_APPROVE: () => import('./cmd/acct/approval.js').then((module) => module.approve),
    ACCT_POLICY: () => import('./cmd/acct/approval.js').then((module) => module.policy),
    ACCT_DISCLOSE: () => import('./cmd/acct/disclose.js'),
  },
  DEMO: { DEMO_RESET: () => import('./cmd/tools/demo-reset.js') },
  MCP: () => import('./cmd/tools/mcp.js').then((module) => module.withCommands(COMMANDS)),
  TOOLS: () => import('./cmd/tools/tools.js').then((module) => module.withCommands(COMMANDS)),
  API: () => import('./cmd/tools/api.js'),
  COMPLETION: () => import('./cmd/tools/completion.js'),
  SANDBOX: { SANDBOX_SERVE: () => import('./cmd/tools/sandbox-serve.js') },
});

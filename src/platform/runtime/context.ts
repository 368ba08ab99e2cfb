// The services a command uses: each built on first use, closed last opened first at the end.
import type { Output } from '../terminal/output.js';
import { sayNotice, type Notice } from '../results/notices.js';
import { hedgeCommandLine } from '../../core/program.js';
import type { OutputFormat } from '../../core/vocabulary.js';
import { waitDeadline } from '../config/wait-bound.js';
import type { HedgeClient } from '../api/client.js';
import type { createClient } from '../api/create-client.js';
import type { Env } from '../config/env.js';
import type { ApiRequest, Clock, HttpConnections } from '../api/transport.js';
import { configDir, resolveCredentials, type ResolvedCredentials } from '../config/credentials.js';
import type { Journal, SideAfter } from '../journal/index.js';
import type { Prompter } from '../terminal/prompter.js';
import type { Io } from '../terminal/terminal.js';

/** The global options, once parsed (src/cli/globals.ts reads them off the command line). */
export interface GlobalOptions {
  /** true with --json, --format json, --format ndjson, --query or --raw: data on stdout is JSON. */
  json: boolean;
  /** true when JSON was asked for by name (--json, --format json or ndjson): a failure is then a JSON document. */
  jsonErrors?: boolean;
  /** --format as typed (--json alone is `json`); undefined: table on a terminal, tsv in a pipe. */
  format?: OutputFormat;
  /** --raw: JSON is the server's data as it sent it instead of hedge's one shape. */
  raw?: boolean;
  /** --fields, split on commas, in the order given. */
  fields?: string[];
  query?: string;
  /** false with --no-header: tsv and csv without their header row. */
  header: boolean;
  profile?: string;
  demo: boolean;
  yes: boolean;
  input: boolean;
  color: boolean;
  verbose: boolean;
  /** --timeout in seconds: bounds the whole command, waits included; 0 means no bound at all. */
  timeout?: number;
  /** --request-timeout in seconds: bounds each HTTP attempt. */
  requestTimeout?: number;
  /** The program as the user runs it (`hedge`, `./bin/hedge.js`), for the command lines hedge suggests; absent: `hedge`. */
  program?: string;
}

// What an agent's call brings besides its arguments: where target files come from, trade limits, its token's plan.
export interface TargetFileSource {
  read(file: string): Promise<{ text: string; sourceName: string }>;
}

export interface Trade {
  market: string;
  notionalUsd: number;
  /** The hedges its side held and their notional when read: a confirmation binds them (features/write/as-shown.ts). */
  held?: SideAfter;
}

/** The operator's limits on an agent's call (`hedge mcp --max-notional`, `--max-daily-notional`, `--markets`). */
export interface TradeGate {
  admit(trades: readonly Trade[] | undefined, what: string, again?: Readmission): Promise<void>;
}

/** An action judged anew: its amount replaces what was counted for it before, never adds to it. */
export interface Readmission {
  /** What this call admitted for the action before (a retry): replaced by `trades`. */
  replacing?: readonly Trade[];
  /** The journal entry the action finishes (a resume): what it recorded leaves the daily count, `trades` counts instead. */
  finishing?: string;
}

/** A live write an agent confirmed with a token: the command passes the requests it is about to send, in order. */
export interface PlanCheck {
  check(requests: readonly ApiRequest[], trades: readonly Trade[] | undefined): void;
}

/** What a client of the command may be built with besides its credentials. */
export type ClientSettings = Partial<Parameters<typeof createClient>[0]>;

export interface ContextInit {
  io: Io;
  env: Env;
  globals: GlobalOptions;
  clock: Clock;
  signal: AbortSignal;
  output: Output;
  prompter?: Prompter;
  client?: HedgeClient;
  credentials?: ResolvedCredentials;
  journal?: Journal;
  /** Someone else's connections (the agent server's, shared by its calls): used, never closed here. */
  connections?: HttpConnections;
  /** Who asked: a person or script at the CLI (default), an agent through `hedge mcp`, or a keeper's step. */
  origin?: 'cli' | 'agent' | 'keeper';
  targetFiles?: TargetFileSource;
  tradeGate?: TradeGate;
  planCheck?: PlanCheck;
  /** Absolute clock time when --timeout runs out, when it must be another context's (derive()). */
  deadline?: number;
  /** Where the flows' notices go (unset: the output); a context whose notices are taken draws no progress. */
  notify?: (notice: Notice) => void;
  /** Confirmed before it ran (a keeper's step: by the keeper's start); unset: --yes says. */
  confirmedAhead?: boolean;
}

// The context's read-only fields: its settings, and what it works out from them once (assigned in the constructor).
const fields = ({ prompter, client, credentials, journal, connections, notify, ...init }: ContextInit) => {
  const { io, globals, clock, output } = init;
  return {
    ...init,
    origin: init.origin ?? 'cli',
    confirmedAhead: init.confirmedAhead ?? globals.yes,
    // --timeout bounds the whole command (none when absent or 0).
    deadline: init.deadline ?? (globals.timeout ? clock.now() + globals.timeout * 1000 : undefined),
    interactive: globals.input && io.stdinIsTTY && io.stdoutIsTTY,
    /** A person reads the output: a human mode, and no caller takes the notices. */
    forPeople: output.isHuman && notify === undefined,
  };
};

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- that merge is the point
export interface CommandContext extends Readonly<ReturnType<typeof fields>> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class CommandContext {
  private readonly built = new Map<keyof CommandContext, Promise<unknown>>();
  private readonly disposers: Array<() => Promise<void> | void> = [];
  private parent?: CommandContext;
  /** A derived context with a signal of its own builds its own client (requests stop with that signal). */
  private ownClient = false;
  private signals: { take?: (signal: string) => boolean } = {};
  private completionWords?: { marketsList?: string[]; markets: string[]; hedges: string[] };

  constructor(readonly init: ContextInit) {
    Object.assign(this, fields(init));
    for (const name of ['prompter', 'client', 'credentials', 'journal', 'connections'] as const)
      if (init[name]) this.built.set(name, Promise.resolve(init[name]));
  }

  /** Built once; a derived context asks its parent, but for its prompter, journal choice and a client of its own. */
  private once<T>(name: keyof CommandContext, make: () => Promise<T>, shared = true): Promise<T> {
    if (shared && this.parent) return (this.parent[name] as () => Promise<T>)();
    let service = this.built.get(name) as Promise<T> | undefined;
    if (!service) this.built.set(name, (service = make()));
    return service;
  }

  // Arrow fields: handed on as they are, bound to this context.
  readonly onDispose = (dispose: () => Promise<void> | void) => {
    this.disposers.push(dispose);
  };

  async dispose() {
    for (const dispose of this.disposers.reverse()) {
      try {
        await dispose();
      } catch {
        // Cleanup must never mask the command's own outcome.
      }
    }
    this.disposers.length = 0;
  }

  /** The same command's context for `--until` or a keeper's step: credentials, journal and store shared. */
  derive(
    changes: Partial<Pick<ContextInit, 'output' | 'signal' | 'origin' | 'notify' | 'confirmedAhead'>> & {
      globals?: Partial<GlobalOptions>;
    },
  ) {
    // What is not changed is this context's (a test's injected client included).
    const child = new CommandContext({
      ...this.init,
      ...changes,
      globals: { ...this.globals, ...changes.globals },
      deadline: changes.signal ? undefined : this.deadline,
    });
    child.parent = this;
    child.ownClient = changes.signal !== undefined;
    child.signals = this.signals;
    return child;
  }

  keeperStep(step: { signal: AbortSignal; confirmed: boolean; notify: (notice: Notice) => void }) {
    return this.derive({ signal: step.signal, notify: step.notify, confirmedAhead: step.confirmed, origin: 'keeper' });
  }

  readonly hedgeCommand = (...words: string[]) => hedgeCommandLine(this.globals, words);

  interceptSignals(take: (signal: string) => boolean) {
    this.signals.take = take;
    return () => {
      if (this.signals.take === take) this.signals.take = undefined;
    };
  }

  offerSignal(signal: string) {
    return this.signals.take?.(signal) ?? false;
  }

  readonly notify = (notice: Notice) => {
    if (this.init.notify) this.init.notify(notice);
    else sayNotice(this.output, notice);
  };

  readonly log = (line: string) => {
    if (this.globals.verbose) this.io.stderr.write(`${this.output.chalk.dim(line)}\n`);
  };

  /** The local file, or the team's PostgreSQL store whose sessions (and locks) end with the command. */
  journal() {
    return this.once('journal', async (): Promise<Journal> => {
      const choice = await this.journalChoice();
      const { openJournal, openTeamJournal, journalDir, sayEachSkipOnce } = await import('../journal/index.js');
      const dir = journalDir(this.env);
      const shared = {
        now: this.clock.now,
        sleep: this.clock.sleep,
        onSkip: sayEachSkipOnce((text) => this.output.warn(text)),
      };
      if (choice.kind === 'file')
        return openJournal({
          dir,
          ...shared,
          notice: (text) => this.notify({ kind: 'lock-record-skipped', level: 'warn', text }),
        });
      const team = await openTeamJournal({
        ...choice,
        fallbackDir: dir,
        ...shared,
        log: this.log,
        signal: this.signal,
        deadline: this.deadline,
      });
      this.onDispose(() => team.close?.());
      return team;
    });
  }

  journalChoice() {
    return this.once(
      'journalChoice',
      async () =>
        (await import('../config/journal-store.js')).chooseJournalStore({
          demo: this.globals.demo,
          profileFlag: this.globals.profile,
          env: this.env,
          configDir: configDir(this.env),
          store: this.store,
        }),
      false,
    );
  }

  readonly store = () =>
    this.once('store', async () => new (await import('../config/profile-store.js')).ProfileStore(configDir(this.env)));

  credentials() {
    return this.once('credentials', async () => {
      const { globals, output, env } = this;
      if (globals.demo) {
        // Said when the simulator is actually used, so that bad input under --demo stays one line.
        output.textNote(output.chalk.cyan(`DEMO — local simulator with test funds (state in ${configDir(env)})`));
        const demo = await (await import('./start-demo.js')).startDemo(configDir(env));
        this.onDispose(() => demo.close());
        if (demo.notice) output.warn(demo.notice);
        return demo.credentials;
      }
      return resolveCredentials({
        profileFlag: globals.profile,
        env,
        // The store module (conf) is loaded only when resolving reads it.
        store: this.store,
        // A key helper or keyring that hangs ends with --timeout (or its own bound) and with Ctrl-C.
        reading: { signal: this.signal, deadline: this.deadline, now: this.clock.now },
      });
    });
  }

  client() {
    return this.once(
      'client',
      async () => {
        const [{ maxAnswerBytes }, { resolveWireSettings }, { UsageError }] = await Promise.all([
          import('../api/create-client.js'),
          import('../api/wire/unspecified.js'),
          import('../../core/errors.js'),
        ]);
        // What the environment alone sets is checked before the credentials are read: a bad value is the one
        // line said, before a demo starts its simulator.
        const { problem } = resolveWireSettings(this.env);
        if (problem) throw new UsageError(problem);
        maxAnswerBytes(this.env);
        const wire = await this.wire();
        if (wire.problem) throw new UsageError(wire.problem);
        return this.clientFor(await this.credentials(), {
          wire: wire.settings,
          pageSizeLearned: wire.sources.pageSizeParam === 'learned',
          learn: wire.learn,
          warn: (text) => this.notify({ kind: 'wire-warning', level: 'warn', text }),
          seen: this.rememberForCompletion,
        });
      },
      !this.ownClient,
    );
  }

  /** The markets and hedge ids this command read, kept for shell completion once it ends (never its outcome's
   * concern: a folder or file that cannot be written is passed over). */
  readonly rememberForCompletion = (words: { marketsList?: string[]; markets?: string[]; hedges?: string[] }): void => {
    if (this.parent) return this.parent.rememberForCompletion(words);
    if (!this.completionWords) {
      const kept = (this.completionWords = { markets: [] as string[], hedges: [] as string[] });
      this.onDispose(async () => {
        const [{ rememberCompletionWords }, { journalDir }] = await Promise.all([
          import('../journal/completion-words.js'),
          import('../journal/location.js'),
        ]);
        rememberCompletionWords(journalDir(this.env), kept);
      });
    }
    const kept = this.completionWords;
    // The latest read first, each word once: a watch or a keeper reads the same ones again and again.
    const latest = (now: string[] = [], before: string[]) => [...new Set([...now, ...before])].slice(0, 500);
    if (words.marketsList) kept.marketsList = latest(words.marketsList, []);
    kept.markets = latest(words.markets, kept.markets);
    kept.hedges = latest(words.hedges, kept.hedges);
  };

  /** A client for these credentials on this command's connections, clock, deadline, signal and timeouts, requests
   * logged under --verbose. */
  async clientFor(credentials: ResolvedCredentials, more?: ClientSettings) {
    const { createClient } = await import('../api/create-client.js');
    const { globals } = this;
    return createClient({
      connections: await this.connections(),
      credentials,
      env: this.env,
      clock: this.clock,
      deadline: this.deadline,
      timeoutSeconds: globals.timeout,
      signal: this.signal,
      requestTimeoutSeconds: globals.requestTimeout,
      log: globals.verbose ? this.log : undefined,
      ...more,
    });
  }

  /** The wire names in use, and where a name the client learns is kept. */
  async wire() {
    const [credentials, { wireInUse }] = await Promise.all([this.credentials(), import('./wire-memory.js')]);
    return wireInUse(credentials, this);
  }

  /** Built when no caller gave its own (the agent server's, never closed here). */
  connections() {
    return this.once('connections', async () => {
      const connections = new (await import('../api/transport.js')).HttpConnections();
      this.onDispose(() => connections.close());
      return connections;
    });
  }

  prompter() {
    return this.once(
      'prompter',
      async () => (await import('../terminal/prompter.js')).createInquirerPrompter(this.io, this.signal, this.env),
      false,
    );
  }

  waitDeadline(startedAt: number) {
    return waitDeadline(this.globals.timeout, this.deadline, startedAt);
  }

  /** A spinner on a terminal, one line in a pipe, nothing under --json or when a caller takes the notices. */
  async startProgress(label: string, since: number) {
    return (await import('../terminal/spinner.js')).startProgress(
      {
        ...this.io,
        // A caller that takes this context's notices (a keeper's step) is drawn nothing.
        quiet: this.globals.json || this.init.notify !== undefined,
        env: this.env,
        output: this.output,
        now: this.clock.now,
        onDispose: this.onDispose,
      },
      label,
      since,
    );
  }

  /** A live question starts with a red LIVE. */
  async confirm({ message, live, ...rest }: { message: string; default?: boolean; live?: boolean }) {
    return (await this.prompter()).confirm({
      message: live ? `${this.output.chalk.red.bold('LIVE')} ${message}` : message,
      ...rest,
    });
  }
}

// Everything a command touches comes from here, so a test can run any command with fake streams,
// TTY on or off, a fake clock and a scripted prompter. Heavy pieces (the config store, the API
// client, the prompter, the demo sandbox) are built on first use only.
import { SignalRouter } from './signal-router.js';
import type { HedgeClient } from '../api/client.js';
import type { ApiRequest, Clock, HttpConnections } from '../api/transport.js';
import type { Environment } from '../security/secrets.js';
import { configDir, needsProfileStore, resolveCredentials, type Env, type ResolvedCredentials } from '../config/credentials.js';
import type { ProfileStore } from '../config/profile-store.js';
import type { Prompter } from '../ui/prompter.js';
import type { Output } from '../ui/output.js';
import { questionText, sayNotice, type Notice } from '../ui/notices.js';
import type { Progress } from '../ui/spinner.js';
import type { GlobalOptions } from './globals.js';
import type { Io } from '../ui/terminal.js';
import type { Journal } from '../journal/index.js';
import type { JournalStoreChoice } from '../config/journal-store.js';
import { waitDeadline } from '../config/wait-bound.js';
import { environmentFlagsOf, hedgeCommandLine } from '../exit-codes.js';
import type { DemoHandle } from '../demo/start-demo.js';

export type { DemoHandle } from '../demo/start-demo.js';

export type { Io } from '../ui/terminal.js';

export type { GlobalOptions } from './globals.js';

/**
 * Where `plan` and `apply` get their target file's text. Unset: the file system (or stdin for
 * `-`), as the CLI reads it. `hedge mcp` sets one per call that reads only under its roots, or
 * takes the target inline (src/agent/file-access.ts).
 */
export interface TargetFileSource {
  read(file: string): Promise<{ text: string; sourceName: string }>;
}

/** One market's share of what an action trades, in USD of notional. */
export interface Trade {
  market: string;
  notionalUsd: number;
}

/**
 * The operator's limits on an agent's call (`hedge mcp --max-notional`, `--max-daily-notional`,
 * `--markets`; src/agent/guardrails.ts). A write asks it about the trades it is about to journal
 * and send — the plan it will carry out, decided under whatever lock it holds — so what is checked
 * is what is sent; and again before every send after the first (a retry, a resume), on what the
 * action trades then. `undefined` trades: the action cannot tell what it trades (refused under a
 * cap). Throws PreTradeCheckError (nothing sent) when the trades are over a limit. Unset at the CLI.
 */
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

/**
 * A live write an agent confirmed with a token (src/agent/confirmation.ts): where a command decides
 * its plan (a lone action, an apply's steps, a roll's legs) it passes the requests it is about to
 * send, in order, before the first leaves. A preview's dry run records them; the confirmed run
 * throws when they differ from what the preview showed. Unset at the CLI.
 */
export interface PlanCheck {
  check(requests: readonly ApiRequest[]): void;
}

export interface ContextInit {
  io: Io;
  env: Env;
  globals: GlobalOptions;
  clock: Clock;
  signal: AbortSignal;
  output: Output;
  /** Overrides for tests; each is built lazily otherwise. */
  prompter?: Prompter;
  store?: ProfileStore;
  startDemo?: (configDir: string) => Promise<DemoHandle>;
  /** The client seam: a unit test runs a command in-process against a fake client. */
  client?: HedgeClient;
  credentials?: ResolvedCredentials;
  journal?: Journal;
  /**
   * Connections owned by someone else (the agent server's, shared by its calls, some at once): used,
   * never closed here. Unset: the context builds its own on first use and closes them when it ends.
   */
  connections?: HttpConnections;
  /** Who asked for the command: a person or script at the CLI (default), an agent through `hedge mcp`, or a keeper's step. */
  origin?: 'cli' | 'agent' | 'keeper';
  /** The runner's signal router (a derived context shares its parent's); a new one when absent. */
  signals?: SignalRouter;
  targetFiles?: TargetFileSource;
  tradeGate?: TradeGate;
  planCheck?: PlanCheck;
  /** Absolute clock time when --timeout runs out, when it must be another context's (derive()). */
  deadline?: number;
  /**
   * Where the flows' notices go; unset: said on this context's output (ui/notices.ts). A context
   * whose notices a caller takes (a keeper's step) is not read by people: it draws no progress and
   * reads nothing only people would be shown.
   */
  notify?: (notice: Notice) => void;
  /** Confirmed before it ran (a keeper's step: by the keeper's own start), so nothing is asked; unset: --yes says. */
  confirmedAhead?: boolean;
}

export class CommandContext {
  readonly io: Io;
  readonly env: Env;
  readonly globals: GlobalOptions;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly output: Output;
  /** Absolute clock time when --timeout runs out. */
  readonly deadline?: number;
  private readonly init: ContextInit;
  /** Recorded with every write in the journal, the desk's audit log. */
  readonly origin: 'cli' | 'agent' | 'keeper';
  /** Set for an agent's call: target files only under its roots, or inline (see TargetFileSource). */
  readonly targetFiles?: TargetFileSource;
  /** Set for an agent's write call under the operator's limits (see TradeGate). */
  readonly tradeGate?: TradeGate;
  /** Set for an agent's write call on a live key: its preview's plan, or the one its token confirmed (see PlanCheck). */
  readonly planCheck?: PlanCheck;
  private storeInstance?: ProfileStore;
  private credentialsPromise?: Promise<ResolvedCredentials>;
  private clientPromise?: Promise<HedgeClient>;
  private prompterInstance?: Prompter;
  private journalPromise?: Promise<Journal>;
  private journalChoicePromise?: Promise<JournalStoreChoice>;
  private connectionsPromise?: Promise<HttpConnections>;
  private readonly disposers: Array<() => Promise<void> | void> = [];
  /** The runner's stop signals, offered first to a command that handles them itself (runtime/signal-router.ts). */
  readonly signals: SignalRouter;
  /** Set on a derived context: the credentials, client, journal and store are its parent's. */
  private parent?: CommandContext;
  /** A derived context with a signal of its own builds its own client (requests stop with that signal). */
  private ownClient = false;

  constructor(init: ContextInit) {
    this.init = init;
    this.origin = init.origin ?? 'cli';
    this.targetFiles = init.targetFiles;
    this.tradeGate = init.tradeGate;
    this.planCheck = init.planCheck;
    this.io = init.io;
    this.env = init.env;
    this.globals = init.globals;
    this.clock = init.clock;
    this.signal = init.signal;
    this.signals = init.signals ?? new SignalRouter();
    this.output = init.output;
    const timeout = init.globals.timeout;
    this.deadline = init.deadline ?? (timeout === undefined || timeout === 0 ? undefined : init.clock.now() + timeout * 1000);
    this.storeInstance = init.store;
    this.prompterInstance = init.prompter;
    if (init.client) this.clientPromise = Promise.resolve(init.client);
    if (init.credentials) this.credentialsPromise = Promise.resolve(init.credentials);
    if (init.journal) this.journalPromise = Promise.resolve(init.journal);
  }

  /** When a wait that starts now must give up (config/wait-bound.ts). */
  waitDeadline(startedAt: number): number | undefined {
    return waitDeadline(this.globals.timeout, this.deadline, startedAt);
  }

  /** The flags that chose the environment, to repeat in every hint (exit-codes.ts). */
  get environmentFlags(): string[] {
    return environmentFlagsOf(this.globals);
  }

  /** A command line to suggest, with the flags that chose the environment (exit-codes.ts). */
  hedgeCommand(...words: string[]): string {
    return hedgeCommandLine(this.environmentFlags, words);
  }

  /**
   * The same command's context with another output and globals (`--until`), or another notice sink
   * and confirmation (a keeper's step): it shares this context's
   * credentials, journal and store (each still built once, when first asked for). Without a
   * signal of its own it shares the client, the deadline and the signal too: `--until` runs each
   * poll of a command through one. With one (a step of `hedge keep`), its client is built anew
   * against that signal and its deadline starts now; the shared connections stay open.
   */
  derive(changes: { output?: Output; globals?: Partial<GlobalOptions>; signal?: AbortSignal; origin?: 'keeper' } & Pick<ContextInit, 'notify' | 'confirmedAhead'>): CommandContext {
    const own = changes.signal !== undefined;
    const child = new CommandContext({
      ...this.init,
      origin: changes.origin ?? this.origin,
      notify: changes.notify ?? this.init.notify,
      confirmedAhead: changes.confirmedAhead ?? this.init.confirmedAhead,
      signals: this.signals,
      output: changes.output ?? this.output,
      globals: { ...this.globals, ...changes.globals },
      signal: changes.signal ?? this.signal,
      deadline: own ? undefined : this.deadline,
      // An injected client (a unit test's) serves every derived context; otherwise each is built on first use.
      client: this.init.client,
    });
    child.parent = this;
    child.ownClient = own;
    return child;
  }

  /**
   * The action journal: the local file (state folder, or beside the config when HEDGE_CONFIG_DIR is
   * set), or the team's PostgreSQL store when HEDGE_JOURNAL_URL or the profile's journal_url names
   * one (config/journal-store.ts). The store's client is loaded only then, and its sessions (and so
   * its locks) end when the command does.
   */
  journal(): Promise<Journal> {
    if (this.parent) return this.parent.journal();
    this.journalPromise ??= this.openJournal();
    return this.journalPromise;
  }

  /** Which journal store this command uses, and where that came from. */
  journalChoice(): Promise<JournalStoreChoice> {
    this.journalChoicePromise ??= import('../config/journal-store.js').then(({ chooseJournalStore }) =>
      chooseJournalStore({ demo: this.globals.demo, profileFlag: this.globals.profile, env: this.env, configDir: this.configDir, store: () => this.store() }),
    );
    return this.journalChoicePromise;
  }

  private async openJournal(): Promise<Journal> {
    const choice = await this.journalChoice();
    const { openJournal, journalDir } = await import('../journal/index.js');
    if (choice.kind === 'file') {
      const { sayEachSkipOnce } = await import('../journal/skip-report.js');
      return openJournal({ dir: journalDir(this.env), now: this.clock.now, onSkip: sayEachSkipOnce((text) => this.output.warn(text)) });
    }
    const { openTeamJournal } = await import('../journal/store.js');
    const team = await openTeamJournal({
      url: choice.url,
      shown: choice.shown,
      source: choice.source,
      fallbackDir: journalDir(this.env),
      now: this.clock.now,
      log: (line) => this.log(line),
    });
    this.onDispose(() => team.close?.());
    // The team store offers the file journal's surface, and the interface's holds and locks on top.
    return team;
  }

  /** Prompts are allowed only with a TTY on both ends and without --no-input. */
  get interactive(): boolean {
    return this.globals.input && this.io.stdinIsTTY && this.io.stdoutIsTTY;
  }

  get configDir(): string {
    return configDir(this.env);
  }

  /**
   * The port a flow says what it is doing through (a Notice: kind, level, plain text, data): said on
   * the output unless the context was given another listener (ContextInit.notify).
   */
  notify(notice: Notice): void {
    if (this.init.notify) this.init.notify(notice);
    else sayNotice(this.output, notice);
  }

  /**
   * What a wait shows while it polls: a spinner on a terminal, one line in a pipe, nothing under
   * --json (ui/spinner.ts; ora is loaded only when it spins). Stopped with the command at the latest.
   */
  async startProgress(label: string, since: number): Promise<Progress> {
    const { startProgress } = await import('../ui/spinner.js');
    return startProgress(
      { quiet: this.globals.json || this.init.notify !== undefined, stderrIsTTY: this.io.stderrIsTTY, stderr: this.io.stderr, output: this.output, now: this.clock.now, onDispose: (stop) => this.onDispose(stop) },
      label,
      since,
    );
  }

  /** The confirm port a flow asks through: the prompter's yes/no, the question styled by the ui (`live`: marked LIVE). */
  async confirm(question: { message: string; default?: boolean; live?: boolean }): Promise<boolean> {
    const prompter = await this.prompter();
    return prompter.confirm({ message: questionText(this.output, question), default: question.default });
  }

  /** Whether the output is read by people (a table on a terminal): some figures are read only for them. */
  get forPeople(): boolean {
    return this.output.isHuman && this.init.notify === undefined;
  }

  /** Whether the run was confirmed before it started (--yes; a keeper's step: by the keeper's start): nothing is asked. */
  get confirmedAhead(): boolean {
    return this.init.confirmedAhead ?? this.globals.yes;
  }

  /** --verbose lines on stderr. */
  log(line: string): void {
    if (this.globals.verbose) this.io.stderr.write(`${this.output.chalk.dim(line)}\n`);
  }

  async store(): Promise<ProfileStore> {
    if (this.parent) return this.parent.store();
    if (!this.storeInstance) {
      const { ProfileStore } = await import('../config/profile-store.js');
      this.storeInstance = new ProfileStore(this.configDir);
    }
    return this.storeInstance;
  }

  credentials(): Promise<ResolvedCredentials> {
    this.credentialsPromise ??= this.parent ? this.parent.credentials() : this.resolve();
    return this.credentialsPromise;
  }

  private async resolve(): Promise<ResolvedCredentials> {
    if (this.globals.demo) {
      // Said when the simulator is actually used, so that bad input under --demo stays one line.
      if (!this.globals.json) this.output.note(this.output.chalk.cyan(`DEMO — local simulator with test funds (state in ${this.configDir})`));
      const { startDemo, demoCredentials } = await import('../demo/start-demo.js');
      const demo = await (this.init.startDemo ?? startDemo)(this.configDir);
      this.onDispose(() => demo.close());
      return demoCredentials(demo);
    }
    // The store module (conf) is loaded only when resolving will read it.
    const store = needsProfileStore(this.globals.profile, this.env) ? await this.store() : undefined;
    return resolveCredentials({
      profileFlag: this.globals.profile,
      env: this.env,
      store: () => {
        if (!store) throw new Error('profile store needed but not opened');
        return store;
      },
      // A key helper or keyring that hangs ends with --timeout (or its own bound) and with Ctrl-C.
      reading: { signal: this.signal, deadline: this.deadline, now: () => this.clock.now() },
    });
  }

  async environment(): Promise<Environment> {
    return (await this.credentials()).environment;
  }

  client(): Promise<HedgeClient> {
    this.clientPromise ??= this.parent && !this.ownClient ? this.parent.client() : this.buildClient();
    return this.clientPromise;
  }

  /** The wire names learned from this server before, read and kept (runtime/wire-memory.ts). */
  async wireMemory(): Promise<import('./wire-memory.js').WireMemory> {
    const [credentials, { WireMemory }] = await Promise.all([this.credentials(), import('./wire-memory.js')]);
    return new WireMemory({
      credentials,
      configDir: this.configDir,
      store: () => this.store(),
      log: (line) => this.log(line),
      notify: (notice) => this.notify(notice),
      hedgeCommand: (...words) => this.hedgeCommand(...words),
    });
  }

  private async buildClient(): Promise<HedgeClient> {
    const credentials = await this.credentials();
    const [{ createClient }, { resolveWireSettings }, { UsageError }] = await Promise.all([
      import('../api/create-client.js'),
      import('../api/wire/unspecified.js'),
      import('../errors.js'),
    ]);
    const memory = await this.wireMemory();
    const learned = await memory.read();
    const wire = resolveWireSettings(this.env, credentials.profileWire, learned.names);
    if (wire.problem) throw new UsageError(wire.problem);
    const client = createClient({
      connections: await this.connections(),
      wire: wire.settings,
      learn: (found) => {
        const keeping = memory.keep(learned.scope, found);
        this.onDispose(() => keeping);
      },
      warn: (text) => this.notify({ kind: 'wire-warning', level: 'warn', text }),
      credentials,
      env: this.env,
      clock: this.clock,
      deadline: this.deadline,
      timeoutSeconds: this.globals.timeout,
      signal: this.signal,
      requestTimeoutSeconds: this.globals.requestTimeout,
      log: this.globals.verbose ? (line) => this.log(line) : undefined,
    });
    return client;
  }

  /**
   * The HTTP connections this command's requests go over: the agent server's when it gave them,
   * a derived context's parent's (a keeper's steps share one set), otherwise built on first use and
   * closed when this context ends.
   */
  connections(): Promise<HttpConnections> {
    if (this.init.connections) return Promise.resolve(this.init.connections);
    if (this.parent) return this.parent.connections();
    this.connectionsPromise ??= import('../api/transport.js').then(({ HttpConnections }) => {
      const connections = new HttpConnections();
      this.onDispose(() => connections.close());
      return connections;
    });
    return this.connectionsPromise;
  }

  async prompter(): Promise<Prompter> {
    if (!this.prompterInstance) {
      const { createInquirerPrompter } = await import('../ui/prompter.js');
      this.prompterInstance = createInquirerPrompter(this.io, this.signal);
    }
    return this.prompterInstance;
  }

  onDispose(dispose: () => Promise<void> | void): void {
    this.disposers.push(dispose);
  }

  async dispose(): Promise<void> {
    for (const dispose of this.disposers.reverse()) {
      try {
        await dispose();
      } catch {
        // Cleanup must never mask the command's own outcome.
      }
    }
    this.disposers.length = 0;
  }
}

// Everything a command touches comes from here, so a test can run any command with fake streams,
// TTY on or off, a fake clock and a scripted prompter. Heavy pieces (the config store, the API
// client, the prompter, the demo sandbox) are built on first use only.
import type { HedgeClient } from '../api/client.js';
import type { Clock } from '../api/transport.js';
import type { Environment } from '../security/secrets.js';
import { configDir, needsProfileStore, resolveCredentials, type Env, type ResolvedCredentials } from '../config/credentials.js';
import type { ProfileStore } from '../config/profile-store.js';
import type { Prompter } from '../ui/prompter.js';
import type { Output } from '../ui/output.js';
import type { GlobalOptions } from './globals.js';
import type { Io } from '../ui/terminal.js';
import type { Journal } from '../journal/index.js';
import type { JournalStoreChoice } from '../config/journal-store.js';
import type { DemoHandle } from '../demo/start-demo.js';

export type { DemoHandle } from '../demo/start-demo.js';

export type { Io } from '../ui/terminal.js';

export type { GlobalOptions } from './globals.js';

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
   * The agent server (hedge mcp) runs many commands, some at once, in one process: closing the
   * process's shared keep-alive sockets when one of them ends would cut the others off. It closes
   * them once, when it stops.
   */
  keepTransportOpen?: boolean;
  /** Who asked for the command: a person or script at the CLI (default), or an agent through `hedge mcp`. */
  origin?: 'cli' | 'agent';
}

/** How long a wait lasts when --timeout does not say (`--timeout 0` means no bound at all). */
export const DEFAULT_WAIT_BOUND_MS = 120_000;

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
  readonly origin: 'cli' | 'agent';
  private storeInstance?: ProfileStore;
  private credentialsPromise?: Promise<ResolvedCredentials>;
  private clientPromise?: Promise<HedgeClient>;
  private prompterInstance?: Prompter;
  private journalPromise?: Promise<Journal>;
  private journalChoicePromise?: Promise<JournalStoreChoice>;
  private readonly disposers: Array<() => Promise<void> | void> = [];

  constructor(init: ContextInit) {
    this.init = init;
    this.origin = init.origin ?? 'cli';
    this.io = init.io;
    this.env = init.env;
    this.globals = init.globals;
    this.clock = init.clock;
    this.signal = init.signal;
    this.output = init.output;
    const timeout = init.globals.timeout;
    this.deadline = timeout === undefined || timeout === 0 ? undefined : init.clock.now() + timeout * 1000;
    this.storeInstance = init.store;
    this.prompterInstance = init.prompter;
    if (init.client) this.clientPromise = Promise.resolve(init.client);
    if (init.credentials) this.credentialsPromise = Promise.resolve(init.credentials);
    if (init.journal) this.journalPromise = Promise.resolve(init.journal);
  }

  /**
   * When a wait that starts now must give up: --timeout's deadline when given, no bound with
   * `--timeout 0`, otherwise DEFAULT_WAIT_BOUND_MS from now (a wait is never unbounded by default).
   */
  waitDeadline(startedAt: number): number | undefined {
    if (this.globals.timeout === 0) return undefined;
    return this.deadline ?? startedAt + DEFAULT_WAIT_BOUND_MS;
  }

  /** The flags that chose the environment, to repeat in every hint: `--demo`, `--profile NAME`. */
  get environmentFlags(): string[] {
    if (this.globals.demo) return ['--demo'];
    if (this.globals.profile !== undefined) return ['--profile', this.globals.profile];
    return [];
  }

  /** A command line to suggest, with the flags that chose the environment: `hedge --demo hedges hdg_1 --wait`. */
  hedgeCommand(...words: string[]): string {
    return ['hedge', ...this.environmentFlags, ...words].join(' ');
  }

  /**
   * The action journal: the local file (state folder, or beside the config when HEDGE_CONFIG_DIR is
   * set), or the team's PostgreSQL store when HEDGE_JOURNAL_URL or the profile's journal_url names
   * one (config/journal-store.ts). The store's client is loaded only then, and its sessions (and so
   * its locks) end when the command does.
   */
  journal(): Promise<Journal> {
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
    if (choice.kind === 'file') return openJournal({ dir: journalDir(this.env), now: this.clock.now });
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

  /** The exit code of the signal that stopped the command (130 for Ctrl-C when nothing says otherwise). */
  get stopExitCode(): 129 | 130 | 143 {
    const reason: unknown = this.signal.reason;
    return reason instanceof StopSignal ? reason.exitCode : 130;
  }

  /** Prompts are allowed only with a TTY on both ends and without --no-input. */
  get interactive(): boolean {
    return this.globals.input && this.io.stdinIsTTY && this.io.stdoutIsTTY;
  }

  get configDir(): string {
    return configDir(this.env);
  }

  /** --verbose lines on stderr. */
  log(line: string): void {
    if (this.globals.verbose) this.io.stderr.write(`${this.output.chalk.dim(line)}\n`);
  }

  async store(): Promise<ProfileStore> {
    if (!this.storeInstance) {
      const { ProfileStore } = await import('../config/profile-store.js');
      this.storeInstance = new ProfileStore(this.configDir);
    }
    return this.storeInstance;
  }

  credentials(): Promise<ResolvedCredentials> {
    this.credentialsPromise ??= this.resolve();
    return this.credentialsPromise;
  }

  private async resolve(): Promise<ResolvedCredentials> {
    if (this.globals.demo) {
      // Said when the simulator is actually used, so that bad input under --demo stays one line.
      if (!this.globals.json) this.output.note(this.output.chalk.cyan(`DEMO — local simulator with test funds (state in ${this.configDir})`));
      const start = this.init.startDemo ?? (await import('../demo/start-demo.js')).startDemo;
      const demo = await start(this.configDir);
      this.onDispose(() => demo.close());
      const { registerSecret } = await import('../security/secrets.js');
      registerSecret(demo.apiKey);
      return {
        apiKey: demo.apiKey,
        baseUrl: demo.baseUrl,
        environment: 'test',
        profileName: 'demo',
        sources: { apiKey: 'demo', baseUrl: 'demo', profile: 'demo' },
      };
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
    });
  }

  async environment(): Promise<Environment> {
    return (await this.credentials()).environment;
  }

  client(): Promise<HedgeClient> {
    this.clientPromise ??= this.buildClient();
    return this.clientPromise;
  }

  private async buildClient(): Promise<HedgeClient> {
    const credentials = await this.credentials();
    const [{ createClient }, { resolveWireSettings }, { UsageError }] = await Promise.all([
      import('../api/create-client.js'),
      import('../api/unspecified.js'),
      import('../errors.js'),
    ]);
    const wire = resolveWireSettings(this.env, credentials.profileWire);
    if (wire.problem) throw new UsageError(wire.problem);
    const client = createClient({
      wire: wire.settings,
      warn: (text) => this.output.warn(text),
      credentials,
      env: this.env,
      clock: this.clock,
      deadline: this.deadline,
      timeoutSeconds: this.globals.timeout,
      signal: this.signal,
      requestTimeoutSeconds: this.globals.requestTimeout,
      log: this.globals.verbose ? (line) => this.log(line) : undefined,
    });
    if (!this.init.keepTransportOpen) {
      const { closeTransport } = await import('../api/transport.js');
      this.onDispose(closeTransport);
    }
    return client;
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

/** The abort reason when a signal stopped the command; its exit code is the signal's (130, 143, 129). */
export class StopSignal extends Error {
  constructor(
    readonly signal: string,
    readonly exitCode: 129 | 130 | 143,
  ) {
    super(`stopped by ${signal}`);
  }
}

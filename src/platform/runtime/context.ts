// The services a command uses, each built once on first use and closed (last opened first) when it ends.
import type { HedgeClient } from '../api/client.js';
import type { Clock, HttpConnections } from '../api/transport.js';
import {
  configDir,
  needsProfileStore,
  resolveCredentials,
  type Env,
  type ResolvedCredentials,
} from '../config/credentials.js';
import type { ProfileStore } from '../config/profile-store.js';
import type { Prompter } from '../terminal/prompter.js';
import type { Output } from '../terminal/output.js';
import type { Io } from '../terminal/terminal.js';
import { questionText, sayNotice, type Notice } from '../results/notices.js';
import type { GlobalOptions } from './globals.js';
import type { Journal } from '../journal/index.js';
import type { DemoHandle } from './start-demo.js';
import { hedgeCommandLine } from '../../core/program.js';
import type { PlanCheck, TargetFileSource, TradeGate } from './agent-limits.js';
import { commandDeadline, waitDeadline } from '../config/wait-bound.js';

export interface ContextInit {
  io: Io;
  env: Env;
  globals: GlobalOptions;
  clock: Clock;
  signal: AbortSignal;
  output: Output;
  prompter?: Prompter;
  store?: ProfileStore;
  startDemo?: (configDir: string) => Promise<DemoHandle>;
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

/** What a flow may use of its command: all but the output, the streams and the settings as parsed. */
export type FlowPorts = Omit<
  CommandContext,
  'io' | 'globals' | 'output' | 'derive' | 'dispose' | 'offerSignal' | 'noticesTaken' | 'store' | 'journalChoice'
>;

// The class takes these settings as its own read-only fields (assigned in the constructor).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- that merge is the point
export interface CommandContext extends Readonly<
  Required<Pick<ContextInit, 'io' | 'env' | 'globals' | 'clock' | 'signal' | 'output'>> &
    Pick<ContextInit, 'targetFiles' | 'tradeGate' | 'planCheck'>
> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class CommandContext {
  readonly deadline?: number;
  readonly origin: 'cli' | 'agent' | 'keeper';
  /** A caller takes this context's notices (a keeper's step): nothing is drawn for people. */
  readonly noticesTaken: boolean;
  readonly confirmedAhead: boolean;
  private readonly init: ContextInit;
  private readonly built = new Map<string, Promise<unknown>>();
  private readonly disposers: Array<() => Promise<void> | void> = [];
  private parent?: CommandContext;
  /** A derived context with a signal of its own builds its own client (requests stop with that signal). */
  private ownClient = false;
  private signals: { take?: (signal: string) => boolean } = {};

  constructor(init: ContextInit) {
    this.init = init;
    const { io, env, globals, clock, signal, output, targetFiles, tradeGate, planCheck } = init;
    Object.assign(this, { io, env, globals, clock, signal, output, targetFiles, tradeGate, planCheck });
    this.origin = init.origin ?? 'cli';
    this.noticesTaken = init.notify !== undefined;
    this.confirmedAhead = init.confirmedAhead ?? init.globals.yes;
    this.deadline = init.deadline ?? commandDeadline(init.globals.timeout, init.clock.now());
    for (const name of ['store', 'prompter', 'client', 'credentials', 'journal'] as const)
      if (init[name]) this.built.set(name, Promise.resolve(init[name]));
  }

  private once<T>(name: string, build: () => Promise<T>) {
    let service = this.built.get(name) as Promise<T> | undefined;
    if (!service) this.built.set(name, (service = build()));
    return service;
  }

  onDispose(dispose: () => Promise<void> | void) {
    this.disposers.push(dispose);
  }

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
    changes: { output?: Output; globals?: Partial<GlobalOptions>; signal?: AbortSignal; origin?: 'keeper' } & Pick<
      ContextInit,
      'notify' | 'confirmedAhead'
    >,
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

  hedgeCommand(...words: string[]) {
    return hedgeCommandLine(this.globals, words);
  }

  get interactive() {
    return this.globals.input && this.io.stdinIsTTY && this.io.stdoutIsTTY;
  }

  get inputAllowed() {
    return this.globals.input;
  }

  get verbose() {
    return this.globals.verbose;
  }

  get format() {
    return this.globals.format;
  }

  get timeoutSeconds() {
    return this.globals.timeout;
  }

  get requestTimeoutSeconds() {
    return this.globals.requestTimeout;
  }

  get stdin() {
    return this.io.stdin;
  }

  get stdinIsTTY() {
    return this.io.stdinIsTTY;
  }

  get forPeople() {
    return this.output.isHuman && !this.noticesTaken;
  }

  get configDir() {
    return configDir(this.env);
  }

  waitDeadline(startedAt: number) {
    return waitDeadline(this.globals.timeout, this.deadline, startedAt);
  }

  interceptSignals(take: (signal: string) => boolean) {
    this.signals.take = take;
    return () => {
      if (this.signals.take === take) this.signals.take = undefined;
    };
  }

  offerSignal(signal: string) {
    return this.signals.take?.(signal) ?? false;
  }

  notify(notice: Notice) {
    if (this.init.notify) this.init.notify(notice);
    else sayNotice(this.output, notice);
  }

  log(line: string) {
    if (this.globals.verbose) this.io.stderr.write(`${this.output.chalk.dim(line)}\n`);
  }

  /** A spinner on a terminal, one line in a pipe, nothing under --json or when a caller takes the notices. */
  async startProgress(label: string, since: number) {
    return (await import('../terminal/spinner.js')).startProgress(
      {
        quiet: this.globals.json || this.noticesTaken,
        stderrIsTTY: this.io.stderrIsTTY,
        stderr: this.io.stderr,
        env: this.env,
        output: this.output,
        now: this.clock.now,
        onDispose: (stop) => this.onDispose(stop),
      },
      label,
      since,
    );
  }

  async confirm(question: { message: string; default?: boolean; live?: boolean }) {
    return (await this.prompter()).confirm({ message: questionText(this.output, question), default: question.default });
  }

  /** The local file, or the team's PostgreSQL store whose sessions (and locks) end with the command. */
  journal(): Promise<Journal> {
    if (this.parent) return this.parent.journal();
    return this.once('journal', async () => {
      const choice = await this.journalChoice();
      const { openJournal, journalDir } = await import('../journal/index.js');
      const onSkip = (await import('../journal/skip-report.js')).sayEachSkipOnce((text) => this.output.warn(text));
      if (choice.kind === 'file')
        return openJournal({
          dir: journalDir(this.env),
          now: this.clock.now,
          sleep: this.clock.sleep,
          onSkip,
          notice: (text) => this.notify({ kind: 'lock-record-skipped', level: 'warn', text }),
        });
      const { openTeamJournal } = await import('../journal/store.js');
      const team = await openTeamJournal({
        url: choice.url,
        shown: choice.shown,
        source: choice.source,
        fallbackDir: journalDir(this.env),
        now: this.clock.now,
        sleep: this.clock.sleep,
        log: (line) => this.log(line),
        onSkip,
      });
      this.onDispose(() => team.close?.());
      return team;
    });
  }

  journalChoice() {
    return this.once('journal-choice', async () =>
      (await import('../config/journal-store.js')).chooseJournalStore({
        demo: this.globals.demo,
        profileFlag: this.globals.profile,
        env: this.env,
        configDir: this.configDir,
        store: () => this.store(),
      }),
    );
  }

  store(): Promise<ProfileStore> {
    if (this.parent) return this.parent.store();
    return this.once(
      'store',
      async () => new (await import('../config/profile-store.js')).ProfileStore(this.configDir),
    );
  }

  credentials(): Promise<ResolvedCredentials> {
    if (this.parent) return this.parent.credentials();
    return this.once('credentials', async () => {
      const { globals, output } = this;
      if (globals.demo) {
        // Said when the simulator is actually used, so that bad input under --demo stays one line.
        if (!globals.json)
          output.note(output.chalk.cyan(`DEMO — local simulator with test funds (state in ${this.configDir})`));
        const demoModule = await import('./start-demo.js');
        const demo = await (this.init.startDemo ?? demoModule.startDemo)(this.configDir);
        this.onDispose(() => demo.close());
        if (demo.notice) output.warn(demo.notice);
        return demoModule.demoCredentials(demo);
      }
      // The store module (conf) is loaded only when resolving will read it.
      const store = needsProfileStore(globals.profile, this.env) ? await this.store() : undefined;
      return resolveCredentials({
        profileFlag: globals.profile,
        env: this.env,
        store: () => {
          if (!store) throw new Error('profile store needed but not opened');
          return store;
        },
        // A key helper or keyring that hangs ends with --timeout (or its own bound) and with Ctrl-C.
        reading: { signal: this.signal, deadline: this.deadline, now: () => this.clock.now() },
      });
    });
  }

  client(): Promise<HedgeClient> {
    if (this.parent && !this.ownClient) return this.parent.client();
    return this.once('client', async () => {
      const credentials = await this.credentials();
      const [{ createClient }, { resolveWireSettings }, { UsageError }] = await Promise.all([
        import('../api/create-client.js'),
        import('../api/wire/unspecified.js'),
        import('../../core/errors.js'),
      ]);
      const memory = await this.wireMemory();
      const learned = await memory.read();
      const wire = resolveWireSettings(this.env, credentials.profileWire, learned.names);
      if (wire.problem) throw new UsageError(wire.problem);
      const { globals } = this;
      return createClient({
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
        timeoutSeconds: globals.timeout,
        signal: this.signal,
        requestTimeoutSeconds: globals.requestTimeout,
        log: globals.verbose ? (line) => this.log(line) : undefined,
      });
    });
  }

  async wireMemory() {
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

  /** The agent server's when it gave them (never closed here); a keeper's steps share their parent's. */
  connections(): Promise<HttpConnections> {
    if (this.init.connections) return Promise.resolve(this.init.connections);
    if (this.parent) return this.parent.connections();
    return this.once('connections', async () => {
      const connections = new (await import('../api/transport.js')).HttpConnections();
      this.onDispose(() => connections.close());
      return connections;
    });
  }

  prompter() {
    return this.once('prompter', async () =>
      (await import('../terminal/prompter.js')).createInquirerPrompter(this.io, this.signal, this.env),
    );
  }
}

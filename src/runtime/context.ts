// The services a command uses, built on first use and ended with it: a test runs any command with
// fake streams, TTY on or off, a fake clock and a scripted prompter. How each service is built is
// runtime/command-services.ts; what a flow may use of them is runtime/flow-ports.ts.
import { SignalRouter } from './signal-router.js';
import type { HedgeClient } from '../api/client.js';
import type { HttpConnections } from '../api/transport.js';
import { configDir, type ResolvedCredentials } from '../config/credentials.js';
import type { ProfileStore } from '../config/profile-store.js';
import type { Prompter } from '../ui/prompter.js';
import type { Output } from '../ui/output.js';
import { sayNotice, type Notice } from '../ui/notices.js';
import type { GlobalOptions } from './globals.js';
import type { Journal } from '../journal/index.js';
import type { JournalStoreChoice } from '../config/journal-store.js';
import { hedgeCommandLine } from '../program.js';
import type { ContextInit, Given } from './context-init.js';
import type { WireMemory } from './wire-memory.js';
import { Lifetime } from './lifetime.js';
import { commandDeadline } from '../config/wait-bound.js';

// The class takes the given settings as its own read-only fields (assigned in the constructor).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging -- that merge is the point
export interface CommandContext extends Given {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class CommandContext extends Lifetime {
  /** Absolute clock time when --timeout runs out. */
  readonly deadline?: number;
  /** Recorded with every write in the journal, the desk's audit log. */
  readonly origin: 'cli' | 'agent' | 'keeper';
  /** The runner's stop signals, offered first to a command that handles them itself. */
  readonly signals: SignalRouter;
  /** A caller takes this context's notices (a keeper's step): nothing is drawn for people. */
  readonly noticesTaken: boolean;
  /** Confirmed before it ran (--yes; a keeper's step: by the keeper's start): nothing is asked. */
  readonly confirmedAhead: boolean;
  private readonly init: ContextInit;
  /** Set on a derived context: the credentials, client, journal and store are its parent's. */
  private parent?: CommandContext;
  /** A derived context with a signal of its own builds its own client (requests stop with that signal). */
  private ownClient = false;

  constructor(init: ContextInit) {
    super();
    this.init = init;
    const { io, env, globals, clock, signal, output, targetFiles, tradeGate, planCheck } = init;
    Object.assign(this, { io, env, globals, clock, signal, output, targetFiles, tradeGate, planCheck });
    this.origin = init.origin ?? 'cli';
    this.signals = init.signals ?? new SignalRouter();
    this.noticesTaken = init.notify !== undefined;
    this.confirmedAhead = init.confirmedAhead ?? init.globals.yes;
    this.deadline = init.deadline ?? commandDeadline(init.globals.timeout, init.clock.now());
    for (const name of ['store', 'prompter', 'client', 'credentials', 'journal'] as const) this.given(name, init[name]);
  }

  /**
   * The same command's context with another output and globals (`--until`), or another notice sink
   * and confirmation (a keeper's step): it shares this context's credentials, journal and store.
   * Without a signal of its own it shares the client, the deadline and the signal too; with one (a
   * step of `hedge keep`) its client is built anew against that signal and its deadline starts now.
   */
  derive(
    changes: { output?: Output; globals?: Partial<GlobalOptions>; signal?: AbortSignal; origin?: 'keeper' } & Pick<
      ContextInit,
      'notify' | 'confirmedAhead'
    >,
  ): CommandContext {
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

  /** A command line to suggest, as the user runs hedge, with the flags that chose the environment (program.ts). */
  hedgeCommand(...words: string[]): string {
    return hedgeCommandLine(this.globals, words);
  }

  /** Prompts are allowed only with a TTY on both ends and without --no-input. */
  get interactive(): boolean {
    return this.globals.input && this.io.stdinIsTTY && this.io.stdoutIsTTY;
  }

  get configDir(): string {
    return configDir(this.env);
  }

  /** Said on the output unless the context was given another listener (ContextInit.notify). */
  notify(notice: Notice): void {
    if (this.init.notify) this.init.notify(notice);
    else sayNotice(this.output, notice);
  }

  /** --verbose lines on stderr. */
  log(line: string): void {
    if (this.globals.verbose) this.io.stderr.write(`${this.output.chalk.dim(line)}\n`);
  }

  journal(): Promise<Journal> {
    if (this.parent) return this.parent.journal();
    return this.once('journal', async () =>
      (await import('./command-services.js')).openCommandJournal(this, await this.journalChoice()),
    );
  }

  journalChoice(): Promise<JournalStoreChoice> {
    return this.once('journal-choice', async () => (await import('./command-services.js')).chooseCommandJournal(this));
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
    return this.once('credentials', async () =>
      (await import('./command-services.js')).resolveCommandCredentials(this, this.init.startDemo),
    );
  }

  client(): Promise<HedgeClient> {
    if (this.parent && !this.ownClient) return this.parent.client();
    return this.once('client', async () => (await import('./command-services.js')).buildCommandClient(this));
  }

  async wireMemory(): Promise<WireMemory> {
    return (await import('./command-services.js')).commandWireMemory(this);
  }

  /**
   * The agent server's connections when it gave them, a derived context's parent's (a keeper's
   * steps share one set), otherwise built on first use and closed when this context ends.
   */
  connections(): Promise<HttpConnections> {
    if (this.init.connections) return Promise.resolve(this.init.connections);
    if (this.parent) return this.parent.connections();
    return this.once('connections', async () => {
      const connections = new (await import('../api/transport.js')).HttpConnections();
      this.onDispose(() => connections.close());
      return connections;
    });
  }

  prompter(): Promise<Prompter> {
    return this.once('prompter', async () =>
      (await import('../ui/prompter.js')).createInquirerPrompter(this.io, this.signal, this.env),
    );
  }
}

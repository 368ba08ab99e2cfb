// The services a command uses: each built on first use (services.ts says how), closed last opened first at the end.
import type { Output } from '../terminal/output.js';
import { sayNotice, type Notice } from '../results/notices.js';
import type { GlobalOptions } from './globals.js';
import { hedgeCommandLine } from '../../core/program.js';
import { commandDeadline } from '../config/wait-bound.js';
import * as build from './services.js';
import type { ContextInit, FlowSettings, ServiceHost } from './services.js';

export type { ContextInit } from './services.js';

// The class takes these settings as its own read-only fields (assigned in the constructor).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- that merge is the point
export interface CommandContext
  extends
    Readonly<
      Required<Pick<ContextInit, 'io' | 'env' | 'globals' | 'clock' | 'signal' | 'output'>> &
        Pick<ContextInit, 'targetFiles' | 'tradeGate' | 'planCheck'>
    >,
    FlowSettings {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class CommandContext {
  readonly deadline?: number;
  readonly origin: 'cli' | 'agent' | 'keeper';
  /** A caller takes this context's notices (a keeper's step): nothing is drawn for people. */
  readonly noticesTaken: boolean;
  readonly confirmedAhead: boolean;
  readonly init: ContextInit;
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
    Object.assign(this, build.flowSettings(this));
  }

  /** Built once; a derived context asks its parent, but for its prompter, journal choice and a client of its own. */
  private once<T>(
    name: 'journal' | 'journalChoice' | 'store' | 'credentials' | 'client' | 'connections' | 'prompter',
    make: (ctx: ServiceHost) => Promise<T>,
    shared = true,
  ): Promise<T> {
    if (shared && this.parent) return this.parent[name]() as Promise<T>;
    let service = this.built.get(name) as Promise<T> | undefined;
    if (!service) this.built.set(name, (service = make(this)));
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

  journal() {
    return this.once('journal', build.openJournal);
  }

  journalChoice() {
    return this.once('journalChoice', build.chooseJournal, false);
  }

  store() {
    return this.once('store', build.openStore);
  }

  credentials() {
    return this.once('credentials', build.readCredentials);
  }

  client() {
    return this.once('client', build.buildClient, !this.ownClient);
  }

  wireMemory() {
    return build.openWireMemory(this);
  }

  connections() {
    return this.once('connections', build.openConnections);
  }

  prompter() {
    return this.once('prompter', build.openPrompter, false);
  }
}

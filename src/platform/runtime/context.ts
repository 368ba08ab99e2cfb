// The services a command uses: each built on first use (services.ts says how, reading this context only once it is
// made), closed last opened first at the end.
import { sayNotice, type Notice } from '../results/notices.js';
import { hedgeCommandLine } from '../../core/program.js';
import { DEFAULT_WAIT_BOUND_MS } from '../config/wait-bound.js';
import type { ResolvedCredentials } from '../config/credentials.js';
import { services, type Services } from './services.js';
import { safeText } from '../../core/security/safe-text.js';
import type { ClientSettings, CompletionWords, ContextInit, GlobalOptions } from './settings.js';

export type * from './settings.js';

// The context's read-only fields: its settings, and what it works out from them once (assigned in the constructor).
const fields = ({ prompter, client, credentials, journal, connections, notify, ...init }: ContextInit) => {
  const { io, globals, clock } = init;
  return {
    ...init,
    origin: init.origin ?? 'cli',
    // --timeout bounds the whole command (none when absent or 0).
    deadline: init.deadline ?? (globals.timeout ? clock.now() + globals.timeout * 1000 : undefined),
    interactive: globals.input && io.stdinIsTTY && io.stdoutIsTTY,
  };
};

type Name = 'journal' | 'journalChoice' | 'store' | 'credentials' | 'client' | 'connections' | 'prompter';

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type -- that merge is the point
export interface CommandContext extends Readonly<ReturnType<typeof fields>> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging -- see the interface above
export class CommandContext {
  private readonly built = new Map<string, Promise<unknown>>();
  private readonly disposers: Array<() => Promise<void> | void> = [];
  private parent?: CommandContext;
  /** A derived context with a signal of its own builds its own client (requests stop with that signal). */
  private ownClient = false;
  private signals: { take?: (signal: string) => boolean } = {};
  private remember?: (words: CompletionWords) => void;

  constructor(readonly init: ContextInit) {
    Object.assign(this, fields(init));
    for (const name of ['prompter', 'client', 'credentials', 'journal', 'connections'] as const)
      if (init[name]) this.built.set(name, Promise.resolve(init[name]));
  }

  /** Built once; a derived context asks its parent, but for its prompter, journal choice and a client of its own. */
  private once<N extends Name>(name: N, shared = true): ReturnType<Services[N]> {
    if (shared && this.parent) return this.parent[name]() as never;
    if (!this.built.has(name)) this.built.set(name, services(this)[name]());
    return this.built.get(name) as never;
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
    changes: Partial<Pick<ContextInit, 'output' | 'signal' | 'origin' | 'notify'>> & {
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

  keeperStep(step: { signal: AbortSignal; notify: (notice: Notice) => void }) {
    return this.derive({ signal: step.signal, notify: step.notify, origin: 'keeper' });
  }

  // A word may come from a row or an answer (a journal id): a suggested command is one line, shown as safely as a value.
  readonly hedgeCommand = (...words: string[]) => hedgeCommandLine(this.globals, words.map(safeText));

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

  // A --verbose line carries server text (a request id) and store or file errors: filtered like every output.
  readonly log = (line: string) => {
    if (this.globals.verbose) this.io.stderr.write(`${this.output.chalk.dim(safeText(line))}\n`);
  };

  // Built on first use (a test may put its own in place).
  journal = () => this.once('journal');
  journalChoice = () => this.once('journalChoice', false);
  store = () => this.once('store');
  credentials = () => this.once('credentials');
  client = () => this.once('client', !this.ownClient);
  connections = () => this.once('connections');
  prompter = () => this.once('prompter', false);
  clientFor = (credentials: ResolvedCredentials, more?: ClientSettings) => services(this).clientFor(credentials, more);
  wire = () => services(this).wire();
  /** When a wait that starts at `startedAt` must give up (`--timeout 0`: never). */
  waitDeadline = (startedAt: number) =>
    this.globals.timeout === 0 ? undefined : (this.deadline ?? startedAt + DEFAULT_WAIT_BOUND_MS);
  startProgress = (label: string, since: number) => services(this).startProgress(label, since);
  confirm = (question: Parameters<Services['confirm']>[0]) => services(this).confirm(question);

  readonly rememberForCompletion = (words: CompletionWords): void =>
    this.parent
      ? this.parent.rememberForCompletion(words)
      : (this.remember ??= services(this).completionMemory())(words);
}

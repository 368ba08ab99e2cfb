// What a flow may use from the running command, as plain values and functions: a flow takes the
// members it uses (`Pick<FlowPorts, …>`, named beside it), never the CommandContext, so what it
// touches is read from its signature and a test hands it only those. Each command builds the record
// once from its context (flowPorts); the rules behind the members live where they belong
// (config/wait-bound.ts, exit-codes.ts, ui/notices.ts), not here.
import type { HedgeClient } from '../api/client.js';
import type { Clock, HttpConnections } from '../api/transport.js';
import type { Env, ResolvedCredentials } from '../config/credentials.js';
import type { Journal } from '../journal/index.js';
import type { Progress } from '../ui/spinner.js';
import type { Prompter } from '../ui/prompter.js';
import type { OutputFormat } from './globals.js';
import type { SignalInterceptor } from './signal-router.js';
import type { WireMemory } from './wire-memory.js';
import type { CommandContext } from './context.js';
import type { PlanCheck, TargetFileSource, TradeGate } from './agent-limits.js';
import { waitDeadline } from '../config/wait-bound.js';
import { hedgeCommandLine } from '../program.js';
import { questionText, type Notice } from '../ui/notices.js';

export interface FlowPorts {
  // Time and stopping.
  readonly clock: Clock;
  /** Aborts with the command (Ctrl-C, a keeper's stop). */
  readonly signal: AbortSignal;
  /** Absolute clock time when --timeout runs out. */
  readonly deadline?: number;
  /** --timeout in seconds as given (0: none). */
  readonly timeoutSeconds?: number;
  /** When a wait that starts now must give up (config/wait-bound.ts). */
  waitDeadline(startedAt: number): number | undefined;
  /** Takes the runner's stop signals first (the keeper stops between steps); returns the release. */
  interceptSignals(take: SignalInterceptor): () => void;

  // The service and the machine.
  client(): Promise<HedgeClient>;
  credentials(): Promise<ResolvedCredentials>;
  connections(): Promise<HttpConnections>;
  wireMemory(): Promise<WireMemory>;
  journal(): Promise<Journal>;
  readonly env: Env;
  readonly configDir: string;
  /** --request-timeout in seconds, for a client a flow builds itself (a key check). */
  readonly requestTimeoutSeconds?: number;
  /** Run when the command ends (a write that must land before exit). */
  onDispose(dispose: () => Promise<void> | void): void;

  // Saying.
  notify(notice: Notice): void;
  /** --verbose lines on stderr. */
  log(line: string): void;
  readonly verbose: boolean;
  /** A command line to suggest, with the flags that chose the environment. */
  hedgeCommand(...words: string[]): string;
  startProgress(label: string, since: number): Promise<Progress>;
  /** Read by people (a table on a terminal): some figures are read only for them. */
  readonly forPeople: boolean;
  /** --format as typed. */
  readonly format?: OutputFormat;

  // Asking.
  /** A TTY on both ends and no --no-input. */
  readonly interactive: boolean;
  /** --no-input was not given. */
  readonly inputAllowed: boolean;
  readonly confirmedAhead: boolean;
  confirm(question: { message: string; default?: boolean; live?: boolean }): Promise<boolean>;
  prompter(): Promise<Prompter>;
  readonly stdin: NodeJS.ReadableStream;
  readonly stdinIsTTY: boolean;

  // Who asked, and an agent's limits.
  readonly origin: 'cli' | 'agent' | 'keeper';
  readonly tradeGate?: TradeGate;
  readonly planCheck?: PlanCheck;
  readonly targetFiles?: TargetFileSource;

  /**
   * The ports of one keeper step: its own signal (and so its own client and deadline), a quiet
   * notice sink (what it did comes back as its outcome), confirmed by the keeper's start.
   */
  keeperStep(step: { signal: AbortSignal; confirmed: boolean; notify: (notice: Notice) => void }): FlowPorts;
}

const built = new WeakMap<CommandContext, FlowPorts>();

/** The ports of a command's context, built once per context. */
export function flowPorts(ctx: CommandContext): FlowPorts {
  let ports = built.get(ctx);
  if (!ports) {
    ports = portsOf(ctx);
    built.set(ctx, ports);
  }
  return ports;
}

function portsOf(ctx: CommandContext): FlowPorts {
  return {
    clock: ctx.clock,
    signal: ctx.signal,
    deadline: ctx.deadline,
    timeoutSeconds: ctx.globals.timeout,
    waitDeadline: (startedAt) => waitDeadline(ctx.globals.timeout, ctx.deadline, startedAt),
    interceptSignals: (take) => ctx.signals.intercept(take),
    client: () => ctx.client(),
    credentials: () => ctx.credentials(),
    connections: () => ctx.connections(),
    wireMemory: () => ctx.wireMemory(),
    journal: () => ctx.journal(),
    env: ctx.env,
    configDir: ctx.configDir,
    requestTimeoutSeconds: ctx.globals.requestTimeout,
    onDispose: (dispose) => ctx.onDispose(dispose),
    notify: (notice) => ctx.notify(notice),
    log: (line) => ctx.log(line),
    verbose: ctx.globals.verbose,
    hedgeCommand: (...words) => hedgeCommandLine(ctx.globals, words),
    // A spinner on a terminal, one line in a pipe, nothing under --json or for a caller that takes the notices (ora loads only to spin).
    startProgress: async (label, since) =>
      (await import('../ui/spinner.js')).startProgress(
        {
          quiet: ctx.globals.json || ctx.noticesTaken,
          stderrIsTTY: ctx.io.stderrIsTTY,
          stderr: ctx.io.stderr,
          env: ctx.env,
          output: ctx.output,
          now: ctx.clock.now,
          onDispose: (stop) => ctx.onDispose(stop),
        },
        label,
        since,
      ),
    forPeople: ctx.output.isHuman && !ctx.noticesTaken,
    format: ctx.globals.format,
    interactive: ctx.interactive,
    inputAllowed: ctx.globals.input,
    confirmedAhead: ctx.confirmedAhead,
    confirm: async (question) =>
      (await ctx.prompter()).confirm({ message: questionText(ctx.output, question), default: question.default }),
    prompter: () => ctx.prompter(),
    stdin: ctx.io.stdin,
    stdinIsTTY: ctx.io.stdinIsTTY,
    origin: ctx.origin,
    tradeGate: ctx.tradeGate,
    planCheck: ctx.planCheck,
    targetFiles: ctx.targetFiles,
    keeperStep: ({ signal, confirmed, notify }) =>
      flowPorts(ctx.derive({ signal, notify, confirmedAhead: confirmed, origin: 'keeper' })),
  };
}

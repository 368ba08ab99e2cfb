// How each service of a command is built: the context calls these once, on first use, and closes what they open.
import type { HedgeClient } from '../api/client.js';
import type { Env } from '../config/env.js';
import type { Clock, HttpConnections } from '../api/transport.js';
import { configDir, resolveCredentials, type ResolvedCredentials } from '../config/credentials.js';
import type { ProfileStore } from '../config/profile-store.js';
import { waitDeadline } from '../config/wait-bound.js';
import type { Journal } from '../journal/index.js';
import { questionText, type Notice } from '../results/notices.js';
import type { Output } from '../terminal/output.js';
import type { Prompter } from '../terminal/prompter.js';
import type { Io } from '../terminal/terminal.js';
import type { PlanCheck, TargetFileSource, TradeGate } from './agent-limits.js';
import type { GlobalOptions } from './globals.js';
import type { DemoHandle } from './start-demo.js';
import type { WireMemory } from './wire-memory.js';

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

/** What the builders use of the context that keeps them: its settings, its other services, and where to close. */
export interface ServiceHost extends Readonly<
  Required<Pick<ContextInit, 'io' | 'env' | 'globals' | 'clock' | 'signal' | 'output'>>
> {
  readonly init: ContextInit;
  readonly deadline?: number;
  readonly noticesTaken: boolean;
  notify(notice: Notice): void;
  log(line: string): void;
  onDispose(dispose: () => Promise<void> | void): void;
  hedgeCommand(...words: string[]): string;
  journalChoice(): ReturnType<typeof chooseJournal>;
  store(): Promise<ProfileStore>;
  credentials(): Promise<ResolvedCredentials>;
  wireMemory(): Promise<WireMemory>;
  connections(): Promise<HttpConnections>;
  prompter(): Promise<Prompter>;
}

/** The local file, or the team's PostgreSQL store whose sessions (and locks) end with the command. */
export async function openJournal(ctx: ServiceHost): Promise<Journal> {
  const choice = await ctx.journalChoice();
  const { openJournal, journalDir } = await import('../journal/index.js');
  const onSkip = (await import('../journal/skip-report.js')).sayEachSkipOnce((text) => ctx.output.warn(text));
  const { env, clock } = ctx;
  if (choice.kind === 'file')
    return openJournal({
      dir: journalDir(env),
      now: clock.now,
      sleep: clock.sleep,
      onSkip,
      notice: (text) => ctx.notify({ kind: 'lock-record-skipped', level: 'warn', text }),
    });
  const { openTeamJournal } = await import('../journal/store.js');
  const team = await openTeamJournal({
    url: choice.url,
    shown: choice.shown,
    source: choice.source,
    fallbackDir: journalDir(env),
    now: clock.now,
    sleep: clock.sleep,
    log: (line) => ctx.log(line),
    onSkip,
  });
  ctx.onDispose(() => team.close?.());
  return team;
}

export async function chooseJournal(ctx: ServiceHost) {
  return (await import('../config/journal-store.js')).chooseJournalStore({
    demo: ctx.globals.demo,
    profileFlag: ctx.globals.profile,
    env: ctx.env,
    configDir: configDir(ctx.env),
    store: () => ctx.store(),
  });
}

export async function openStore(ctx: ServiceHost) {
  return new (await import('../config/profile-store.js')).ProfileStore(configDir(ctx.env));
}

export async function readCredentials(ctx: ServiceHost) {
  const { globals, output, env } = ctx;
  if (globals.demo) {
    // Said when the simulator is actually used, so that bad input under --demo stays one line.
    output.textNote(output.chalk.cyan(`DEMO — local simulator with test funds (state in ${configDir(env)})`));
    const demoModule = await import('./start-demo.js');
    const demo = await (ctx.init.startDemo ?? demoModule.startDemo)(configDir(env));
    ctx.onDispose(() => demo.close());
    if (demo.notice) output.warn(demo.notice);
    return demoModule.demoCredentials(demo);
  }
  return resolveCredentials({
    profileFlag: globals.profile,
    env,
    // The store module (conf) is loaded only when resolving reads it.
    store: () => ctx.store(),
    // A key helper or keyring that hangs ends with --timeout (or its own bound) and with Ctrl-C.
    reading: { signal: ctx.signal, deadline: ctx.deadline, now: () => ctx.clock.now() },
  });
}

export async function buildClient(ctx: ServiceHost) {
  const [{ createClient, maxAnswerBytes }, { resolveWireSettings }, { UsageError }] = await Promise.all([
    import('../api/create-client.js'),
    import('../api/wire/unspecified.js'),
    import('../../core/errors.js'),
  ]);
  // What the environment alone sets is checked before the credentials are read: a bad value is the one
  // line said, before a demo starts its simulator.
  const fromEnv = resolveWireSettings(ctx.env);
  if (fromEnv.problem) throw new UsageError(fromEnv.problem);
  maxAnswerBytes(ctx.env);
  const credentials = await ctx.credentials();
  const memory = await ctx.wireMemory();
  const learned = await memory.read();
  const wire = resolveWireSettings(ctx.env, credentials.profileWire, learned.names);
  if (wire.problem) throw new UsageError(wire.problem);
  const { globals } = ctx;
  return createClient({
    connections: await ctx.connections(),
    wire: wire.settings,
    learn: (found) => {
      const keeping = memory.keep(learned.scope, found);
      ctx.onDispose(() => keeping);
    },
    warn: (text) => ctx.notify({ kind: 'wire-warning', level: 'warn', text }),
    credentials,
    env: ctx.env,
    clock: ctx.clock,
    deadline: ctx.deadline,
    timeoutSeconds: globals.timeout,
    signal: ctx.signal,
    requestTimeoutSeconds: globals.requestTimeout,
    log: globals.verbose ? (line) => ctx.log(line) : undefined,
  });
}

export async function openWireMemory(ctx: ServiceHost) {
  const [credentials, { WireMemory }] = await Promise.all([ctx.credentials(), import('./wire-memory.js')]);
  return new WireMemory({
    credentials,
    configDir: configDir(ctx.env),
    store: () => ctx.store(),
    log: (line) => ctx.log(line),
    notify: (notice) => ctx.notify(notice),
    hedgeCommand: (...words) => ctx.hedgeCommand(...words),
  });
}

/** The agent server's when it gave them (never closed here). */
export async function openConnections(ctx: ServiceHost) {
  if (ctx.init.connections) return ctx.init.connections;
  const connections = new (await import('../api/transport.js')).HttpConnections();
  ctx.onDispose(() => connections.close());
  return connections;
}

export async function openPrompter(ctx: ServiceHost) {
  return (await import('../terminal/prompter.js')).createInquirerPrompter(ctx.io, ctx.signal, ctx.env);
}

// The settings src/features/write and src/features/trade read off the context (their ports name which); every
// other flow reads them from `globals` and `io`.
export type FlowSettings = ReturnType<typeof flowSettings>;

export function flowSettings(ctx: ServiceHost) {
  const { globals, io, output } = ctx;
  return {
    interactive: globals.input && io.stdinIsTTY && io.stdoutIsTTY,
    inputAllowed: globals.input,
    timeoutSeconds: globals.timeout,
    stdin: io.stdin,
    stdinIsTTY: io.stdinIsTTY,
    /** A person reads the output: a human mode, and no caller takes the notices. */
    forPeople: output.isHuman && !ctx.noticesTaken,
    waitDeadline: (startedAt: number) => waitDeadline(globals.timeout, ctx.deadline, startedAt),
    /** A spinner on a terminal, one line in a pipe, nothing under --json or when a caller takes the notices. */
    startProgress: async (label: string, since: number) =>
      (await import('../terminal/spinner.js')).startProgress(
        {
          quiet: globals.json || ctx.noticesTaken,
          stderrIsTTY: io.stderrIsTTY,
          stderr: io.stderr,
          env: ctx.env,
          output,
          now: ctx.clock.now,
          onDispose: (stop) => ctx.onDispose(stop),
        },
        label,
        since,
      ),
    confirm: async (question: { message: string; default?: boolean; live?: boolean }) =>
      (await ctx.prompter()).confirm({ message: questionText(output, question), default: question.default }),
  };
}

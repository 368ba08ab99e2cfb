// Runs one command in-process, the way `hedge <command> --json --no-input` runs it in a pipe: its own `run` with a CommandContext whose output keeps the JSON document as a value (never text to parse back) and whose stderr is captured, no TTY and no prompts.
import { PassThrough, Writable } from 'node:stream';
import type { RawInput } from '../runner/command-spec.js';
import type { ResolvedCredentials } from '../../platform/config/credentials.js';
import { describeFailure, EXIT_CODES } from '../../platform/terminal/exit-codes.js';
import { CommandContext, type ContextInit, type PlanCheck, type TradeGate } from '../../platform/runtime/context.js';
import { makeChalk } from '../../platform/terminal/color.js';
import { Output } from '../../platform/terminal/output.js';
import type { AgentTool } from './catalogue.js';
import { FileAccess } from './file-access.js';

/** What every call of one server shares: parsed once when `hedge mcp` starts. */
export type AgentSession = Pick<ContextInit, 'env' | 'globals' | 'clock' | 'connections'> & {
  credentials: ResolvedCredentials;
  log?: (text: string) => void;
  createContext?: (init: ContextInit) => CommandContext;
  files?: FileAccess;
};

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: unknown, done: () => void) {
    // A Buffer reads as its UTF-8 text, as a string is.
    this.text += chunk;
    done();
  }
}

/**
 * A context like a tool call's: JSON out (kept as values in `documents`), stderr captured, no TTY, never a prompt,
 * the session's key. Only a redeemed confirmation token stands in for --yes (`yes`); the server's own --yes does not.
 */
function callContext(session: AgentSession, signal: AbortSignal, yes: boolean, more: Partial<ContextInit> = {}) {
  const stdout = new Capture();
  const stderr = new Capture();
  const io = {
    stdout,
    stderr,
    stdin: new PassThrough().end(),
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
  const documents: unknown[] = [];
  const init: ContextInit = {
    io,
    env: session.env,
    globals: {
      ...session.globals,
      json: true,
      format: 'json',
      fields: undefined,
      query: undefined,
      header: true,
      input: false,
      color: false,
      yes,
    },
    clock: session.clock,
    signal,
    output: new Output({ format: 'json', chalk: makeChalk(false), streams: io, now: session.clock.now, documents }),
    credentials: session.credentials,
    connections: session.connections,
    origin: 'agent',
    ...more,
  };
  const ctx = session.createContext ? session.createContext(init) : new CommandContext(init);
  return { ctx, stdout, stderr, documents };
}

/** Runs `work` with a context like a tool call's, for what the agent interface reads itself (the agent's limits: the book, a plan, the journal). */
export async function withCallContext<T>(session: AgentSession, work: (ctx: CommandContext) => Promise<T>) {
  const { ctx } = callContext(session, new AbortController().signal, false);
  try {
    return await work(ctx);
  } finally {
    await ctx.dispose();
  }
}

export async function runInProcess(
  session: AgentSession,
  tool: AgentTool,
  input: RawInput,
  call: { signal: AbortSignal; yes: boolean; rows?: unknown; gate?: TradeGate; plan?: PlanCheck },
) {
  const { ctx, stdout, stderr, documents } = callContext(session, call.signal, call.yes, {
    targetFiles: (session.files ?? FileAccess.none()).sourceFor(call.rows, call.signal),
    tradeGate: call.gate,
    planCheck: call.plan,
  });
  let exitCode;
  let error;
  try {
    // Through the one runner: a tool call's `until` polls as the CLI's --until does.
    const { runCommand } = await import('../runner/run-command.js');
    exitCode = await runCommand(ctx, tool.spec, input);
  } catch (failure) {
    // The same description as the CLI's, hints carrying this session's --demo/--profile.
    error = describeFailure(failure, ctx.globals);
    exitCode = error.exitCode;
  } finally {
    await ctx.dispose();
  }
  if (session.globals.verbose && stderr.text !== '')
    session.log?.(stderr.text.trimEnd().replace(/^|\n/g, (start) => `${start}[${tool.name}] `));
  const document = documents.length ? (documents.length === 1 ? documents[0] : documents) : null;
  return { exitCode, document, stdout: stdout.text, messages: stderr.text.trimEnd(), error };
}

/** `9 (changes): …` — what a non-zero exit code without an error means. */
export function exitCodeMeaning(code: number) {
  const entry = EXIT_CODES.find((candidate) => candidate.code === code);
  return entry ? `exit code ${code} (${entry.name}): ${entry.meaning}` : `exit code ${code}`;
}

// `hedge keep FILE`: holds the book at a target file through maturities. Each cycle reads the
// book, asks domain/keep.ts what each row needs at the server's time, and carries it out through
// the flows every write already uses: a roll is `hedge roll` (its own journal group, the close
// then the open), a re-open is an open through the one write flow (a `keep-…` group), a
// convergence an add/reduce/close. Nothing here sends a request of its own.
//
// Safety, in order:
//  - one keeper per account: the journal's `keep` lock, held for the keeper's life, dies with it;
//  - a keeper started again first finishes what the journal shows unfinished (by key, reconciled);
//  - it acts only on what it read this cycle: a side it cannot see is never opened;
//  - SIGTERM/SIGINT let the current step finish (its journal entries resolved) and exit 0; a
//    second one stops the step's wait (the journal keeps the action unresolved) and exits at once;
//    SIGHUP re-reads the target file before the next cycle.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { OpenRequest } from '../api/client.js';
import type { Hedge } from '../api/schemas.js';
import { backoffMs, decideRow, rowKey, type KeepDecision, type KeepRow, type SideView } from '../domain/keep.js';
import { HedgeError, HeldError, UsageError } from '../errors.js';
import { describeError } from '../exit-codes.js';
import { isUnresolved, type JournalEntry } from '../journal/index.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';
import { liveReporter, ndjsonReporter, type KeepEvent, type KeepReporter, type KeepRowStatus } from '../ui/keep-view.js';
import { Output } from '../ui/output.js';
import { guardLiveAction } from './live-guard.js';
import { findSide, readBook } from './positions.js';
import { resumeRoll, ROLL_GROUP_PREFIX, runRoll } from './roll.js';
import { readTargetFile } from './target-plan.js';
import { actionFromJournal, changeAction, closeAction, openAction } from './trade-actions.js';
import { identityOf, runWrite, type WriteOptions } from './write-flow.js';

/** Every re-open or convergence of a keeper is journaled under a group starting with this. */
export const KEEP_GROUP_PREFIX = 'keep-';
/** The spec advises polling no faster than every one to two seconds: a cycle is at least this apart. */
export const MIN_INTERVAL_MS = 2_000;
export const DEFAULT_INTERVAL_MS = 60_000;
/** An --alert-cmd that has not finished by then is stopped: a hook must never hold the keeper up. */
const ALERT_COMMAND_BOUND_MS = 10_000;

export interface KeepOptions {
  file: string;
  once: boolean;
  intervalMs: number;
  dryRun: boolean;
  converge: boolean;
  toleranceUsd: number;
  alertCommand?: string;
}

const SEND_AND_WAIT: WriteOptions = { wait: true, dryRun: false, fresh: false };

/** What the keeper remembers between cycles about one row. */
interface RowMemory {
  failures: number;
  retryAtMs: number;
  lastSkip?: string;
  lastDrift?: string;
}

export async function runKeep(ctx: CommandContext, options: KeepOptions): Promise<number> {
  if (options.file === '-' && !options.once && !options.dryRun) {
    throw new UsageError('FILE: a keeper re-reads its target file (on SIGHUP), so it cannot be - (stdin); name the file, or use --once.');
  }
  let rows = toKeepRows((await readTargetFile(ctx, options.file)).rows, options.file);
  const guard = await guardLiveAction(ctx, {
    action: 'keep the book at the target: roll, re-open and (with --converge) change hedges without asking again',
    dryRun: options.dryRun,
  });
  const journal = await ctx.journal();
  const identity = await identityOf(ctx);
  const reporter: KeepReporter = await chooseReporter(ctx);
  // Hooks run beside the keeper; each is bounded, and the keeper waits for them before it exits.
  const alerts = new Set<Promise<void>>();
  const event = (fields: Omit<KeepEvent, 'at'> & { at?: string }) => {
    const full = { at: new Date(ctx.clock.now()).toISOString(), ...fields } as KeepEvent;
    reporter.event(full);
    if ((full.event === 'error' || full.event === 'drift') && options.alertCommand) {
      const running = runAlertCommand(ctx, options.alertCommand, full).finally(() => alerts.delete(running));
      alerts.add(running);
    }
    return full;
  };

  // One keeper per account: held for the keeper's life, released by its exit (kill -9 included).
  let releaseLock: (() => Promise<void>) | undefined;
  if (!options.dryRun) {
    const scope = `${identity.environment}|${identity.host}|${identity.keyId}|keep`;
    const taken = await journal.lock(scope, { waitMs: 0 });
    if (!taken.held) {
      const { holder } = taken;
      throw new HeldError(
        `Another keeper already holds this account (pid ${holder.pid} on ${safeText(holder.host)}, since ${safeText(holder.since)}); this one did not start.`,
        { hint: `Stop that keeper first (\`kill ${holder.pid}\` on ${safeText(holder.host)}), or run \`${ctx.hedgeCommand('keep', options.file, '--dry-run')}\` to see what it is doing.`, holder },
      );
    }
    releaseLock = () => taken.hold.release();
  }

  // Signals: the first SIGTERM/SIGINT ends the loop after the current step; SIGHUP re-reads the file.
  const stepController = new AbortController();
  let stopping = false;
  let reload = false;
  let wake: (() => void) | undefined;
  const stopRequests = new Set<string>();
  ctx.signalInterceptor = (signal) => {
    if (signal === 'SIGHUP') {
      reload = true;
      wake?.();
      return true;
    }
    if (stopRequests.has('stop')) return false;
    stopRequests.add('stop');
    stopping = true;
    wake?.();
    return true;
  };
  // A second stop signal aborts the outer context: the running step's wait stops (its entry stays unresolved).
  ctx.signal.addEventListener('abort', () => stepController.abort(ctx.signal.reason), { once: true });

  const messages: string[] = [];
  const quiet = quietOutput(ctx, messages);
  const memory = new Map<string, RowMemory>();
  let confirmed = !guard.needsConfirmation;
  const stepContext = () => ctx.derive({ signal: stepController.signal, output: quiet, globals: confirmed ? { yes: true } : {} });
  let firstError: number | undefined;
  const noteError = (error: unknown, fields: Omit<KeepEvent, 'at' | 'event'>): void => {
    const described = describeError(error);
    firstError ??= described.exitCode;
    event({
      event: 'error',
      ...fields,
      code: described.code,
      exit_code: described.exitCode,
      message: described.message,
      ...(described.hint ? { hint: described.hint } : {}),
      ...drainMessages(messages),
    });
  };

  try {
    event({ event: 'start', file: options.file, rows: rows.length, dry_run: options.dryRun, pid: process.pid, interval_s: options.intervalMs / 1000, environment: identity.environment });
    if (!confirmed) {
      const preview = await readSides(stepContext(), rows);
      const due = rows.map((row) => ({ row, decision: decideRow(row, preview.views.get(rowKey(row)) ?? {}, preview.nowMs, options) }));
      const lines = due.map(({ row, decision }) => `${row.market} ${row.side} ${row.notionalUsd} USD: ${describeDecision(decision)}`);
      await guard.confirm(`Keep ${rows.length} row${rows.length === 1 ? '' : 's'} at target from now on (${lines.join('; ')})?`);
      confirmed = true;
    }
    if (!options.dryRun) await finishUnfinished(stepContext(), identity, { event, noteError, messages });

    for (let cycle = 1; ; cycle += 1) {
      if (reload) {
        reload = false;
        try {
          rows = toKeepRows((await readTargetFile(ctx, options.file)).rows, options.file);
          event({ event: 'start', file: options.file, rows: rows.length, reloaded: true });
        } catch (error) {
          noteError(error, { phase: 'reload', message: 'the target file could not be re-read; the previous target stays' });
        }
      }
      const statuses = await runCycle(stepContext(), rows, { options, memory, event, noteError, messages, isStopping: () => stopping });
      const nextAt = options.once || options.dryRun || stopping ? undefined : new Date(ctx.clock.now() + options.intervalMs).toISOString();
      reporter.status({ file: options.file, rows: statuses.rows, last_cycle_at: new Date(ctx.clock.now()).toISOString(), next_cycle_at: nextAt, stopping });
      event({ event: 'cycle', cycle, server_time: statuses.serverTime, rows: statuses.rows, ...(nextAt ? { next_cycle_at: nextAt } : {}) });
      if (options.once || options.dryRun || stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.intervalMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (stopping) break;
    }
    if (stopping) event({ event: 'stop', message: 'stopped by a signal after finishing the current step' });
    return options.once || options.dryRun ? (firstError ?? 0) : 0;
  } finally {
    ctx.signalInterceptor = undefined;
    await Promise.all(alerts);
    reporter.close();
    await releaseLock?.().catch(() => {});
    // The steps' contexts keep the shared connections open; the keeper is the last to use them.
    const { closeTransport } = await import('../api/transport.js');
    await closeTransport();
  }
}

function toKeepRows(rows: Awaited<ReturnType<typeof readTargetFile>>['rows'], file: string): KeepRow[] {
  return rows.map((row) => {
    if (row.notionalUsd > 0 && row.tenorDays === undefined) {
      throw new UsageError(`${safeText(file)}:${row.line}: tenor_days is required for a row the keeper holds open.`);
    }
    return {
      market: row.market,
      side: row.side,
      notionalUsd: row.notionalUsd,
      tenorDays: row.tenorDays,
      clientReference: row.clientReference,
      untilMs: row.untilMs,
      rollBeforeMs: row.rollBeforeMs,
    };
  });
}

async function chooseReporter(ctx: CommandContext): Promise<KeepReporter> {
  const live = ctx.io.stdoutIsTTY && ctx.output.isHuman;
  if (!live) return ndjsonReporter(ctx.io.stdout);
  return liveReporter(ctx.io.stdout, () => ctx.output.columns, ctx.output.chalk);
}

/** The output the steps render into: nothing reaches the screen; what they say is kept for the events. */
function quietOutput(ctx: CommandContext, messages: string[]): Output {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      done();
    },
  });
  const said = new Writable({
    write(chunk, _encoding, done) {
      // eslint-disable-next-line no-control-regex
      const text = String(chunk).replace(/\u001b\[[0-9;]*m/g, '').trim();
      if (text !== '') messages.push(...text.split('\n'));
      if (messages.length > 50) messages.splice(0, messages.length - 50);
      done();
    },
  });
  return new Output({ format: 'json', chalk: ctx.output.chalk, streams: { stdout: sink, stderr: said }, now: () => ctx.clock.now(), columns: ctx.output.columns });
}

function drainMessages(messages: string[]): { messages?: string[] } {
  if (messages.length === 0) return {};
  return { messages: messages.splice(0).map((line) => safeText(line)) };
}

interface SideReading {
  views: Map<string, SideView>;
  nowMs: number;
  serverTime?: string;
}

/** The book as the rows need it, at the server's time (its Date header), read fresh. */
async function readSides(ctx: CommandContext, rows: readonly KeepRow[]): Promise<SideReading> {
  const client = await ctx.client();
  const book = await readBook({ client, log: (line) => ctx.log(line) });
  const hedges = await client.listHedges();
  const serverNow = client.transport.serverNow();
  const views = new Map<string, SideView>();
  for (const row of rows) {
    const position = findSide(book, row.market, row.side);
    const opening = hedges.find((hedge) => sameSide(hedge, row) && !FINAL.has(hedge.status));
    views.set(rowKey(row), {
      ...(position
        ? { position: { notionalUsd: position.notionalUsd, hedgeId: position.hedgeId, maturityAtMs: position.maturityAt ? Date.parse(position.maturityAt) : undefined } }
        : {}),
      ...(opening && !position ? { opening: { hedgeId: opening.id, status: opening.status } } : {}),
    });
  }
  const nowMs = serverNow ?? ctx.clock.now();
  return { views, nowMs, serverTime: serverNow === undefined ? undefined : new Date(serverNow).toISOString() };
}

/** Statuses after which a hedge is no longer being opened; anything else (unknown ones too) is in progress. */
const FINAL = new Set(['filled', 'closed', 'failed']);

function sameSide(hedge: Hedge, row: KeepRow): boolean {
  return hedge.market.toUpperCase() === row.market && hedge.side === row.side;
}

interface CycleDeps {
  options: KeepOptions;
  memory: Map<string, RowMemory>;
  event: (fields: Omit<KeepEvent, 'at'>) => KeepEvent;
  noteError: (error: unknown, fields: Omit<KeepEvent, 'at' | 'event'>) => void;
  messages: string[];
  isStopping: () => boolean;
}

async function runCycle(ctx: CommandContext, rows: readonly KeepRow[], deps: CycleDeps): Promise<{ rows: KeepRowStatus[]; serverTime?: string }> {
  const { options, memory, event, noteError } = deps;
  let reading: SideReading;
  try {
    reading = await readSides(ctx, rows);
  } catch (error) {
    // Nothing is done on a book that could not be read: a side it cannot see is never opened.
    noteError(error, { phase: 'read', message: undefined });
    return { rows: rows.map((row) => ({ market: row.market, side: row.side, target_usd: row.notionalUsd, current_usd: null, state: 'unknown (book not read)', next_action: null, next_action_at: null })) };
  }
  const statuses: KeepRowStatus[] = [];
  for (const row of rows) {
    const key = rowKey(row);
    const view = reading.views.get(key) ?? {};
    const remembered = memory.get(key) ?? { failures: 0, retryAtMs: 0 };
    memory.set(key, remembered);
    const decision = decideRow(row, view, reading.nowMs, options);
    const base = { market: row.market, side: row.side };
    const status: KeepRowStatus = {
      ...base,
      ...(row.clientReference ? { client_reference: row.clientReference } : {}),
      target_usd: row.notionalUsd,
      current_usd: view.position?.notionalUsd ?? null,
      state: describeDecision(decision),
      next_action: decision.kind === 'hold' && decision.nextAction ? decision.nextAction : null,
      next_action_at: decision.kind === 'hold' && decision.nextActionAtMs !== undefined ? new Date(decision.nextActionAtMs).toISOString() : null,
    };
    statuses.push(status);
    if (decision.kind === 'hold') {
      remembered.lastSkip = undefined;
      continue;
    }
    if (decision.kind === 'skip') {
      if (remembered.lastSkip !== decision.reason) event({ event: 'skip', ...base, notional_usd: view.position?.notionalUsd, reason: decision.reason });
      remembered.lastSkip = decision.reason;
      continue;
    }
    remembered.lastSkip = undefined;
    if (deps.isStopping()) {
      status.state = 'stopping: not started';
      continue;
    }
    if (ctx.clock.now() < remembered.retryAtMs) {
      status.state = `backing off after ${remembered.failures} failure${remembered.failures === 1 ? '' : 's'}`;
      status.next_action = decision.kind;
      status.next_action_at = new Date(remembered.retryAtMs).toISOString();
      continue;
    }
    try {
      await act(ctx, row, decision, view, deps);
      remembered.failures = 0;
      remembered.retryAtMs = 0;
    } catch (error) {
      remembered.failures += 1;
      remembered.retryAtMs = ctx.clock.now() + backoffMs(remembered.failures, options.intervalMs);
      noteError(error, { ...base, notional_usd: row.notionalUsd, action: decision.kind, failures: remembered.failures, retry_at: new Date(remembered.retryAtMs).toISOString() });
      status.state = `${decision.kind} failed; retrying`;
    }
  }
  return { rows: statuses, serverTime: reading.serverTime };
}

async function act(ctx: CommandContext, row: KeepRow, decision: Exclude<KeepDecision, { kind: 'hold' | 'skip' }>, view: SideView, deps: CycleDeps): Promise<void> {
  const { options, event, memory } = deps;
  const base = { market: row.market, side: row.side };
  const remembered = memory.get(rowKey(row))!;
  switch (decision.kind) {
    case 'drift': {
      const signature = `${decision.currentUsd}→${decision.targetUsd}`;
      const converging = options.converge && !options.dryRun;
      if (remembered.lastDrift !== signature || converging) {
        event({
          event: 'drift',
          ...base,
          notional_usd: decision.currentUsd,
          target_usd: decision.targetUsd,
          hedge_ids: view.position?.hedgeId ? [view.position.hedgeId] : [],
          message: converging ? `${decision.change} ${decision.amountUsd} USD to reach the target` : 'reported only; run with --converge to bring it back',
        });
      }
      remembered.lastDrift = signature;
      if (converging) {
        const entry = await converge(ctx, row, decision);
        event({ event: 'converge', ...base, notional_usd: decision.amountUsd, action: decision.change, journal_id: entry.id, hedge_ids: entry.hedge_id ? [entry.hedge_id] : [], ...drainMessages(deps.messages) });
      }
      if (decision.alsoRollDue && view.position?.maturityAtMs !== undefined && !options.dryRun) {
        await act(ctx, row, { kind: 'roll', notionalUsd: decision.targetUsd, hedgeId: view.position.hedgeId, maturityAtMs: view.position.maturityAtMs }, view, deps);
      }
      return;
    }
    case 'roll': {
      remembered.lastDrift = undefined;
      if (options.dryRun) {
        event({ event: 'roll', ...base, notional_usd: decision.notionalUsd, hedge_ids: decision.hedgeId ? [decision.hedgeId] : [], dry_run: true, maturity_at: new Date(decision.maturityAtMs).toISOString(), tenor_days: row.tenorDays });
        return;
      }
      const startedAt = new Date(ctx.clock.now()).toISOString();
      await runRoll(ctx, { market: row.market, side: row.side, tenorDays: row.tenorDays!, skipChecks: false, write: SEND_AND_WAIT });
      const legs = await newestGroup(ctx, ROLL_GROUP_PREFIX, row, startedAt);
      const opened = legs.find((entry) => entry.leg === 'open');
      event({
        event: 'roll',
        ...base,
        notional_usd: decision.notionalUsd,
        hedge_ids: [decision.hedgeId, opened?.hedge_id].filter((id): id is string => typeof id === 'string'),
        journal_id: opened?.group,
        tenor_days: row.tenorDays,
        ...drainMessages(deps.messages),
      });
      return;
    }
    case 'reopen': {
      remembered.lastDrift = undefined;
      const request: OpenRequest = {
        market: row.market,
        side: row.side,
        notional_usd: decision.notionalUsd,
        tenor_days: row.tenorDays!,
        ...(row.clientReference ? { client_reference: row.clientReference } : {}),
      };
      if (options.dryRun) {
        event({ event: 'reopen', ...base, notional_usd: decision.notionalUsd, tenor_days: row.tenorDays, dry_run: true });
        return;
      }
      const client = await ctx.client();
      const group = newGroup(ctx);
      const argv = ['open', row.market, row.side, String(decision.notionalUsd), '--tenor', String(row.tenorDays), ...(row.clientReference ? ['--ref', row.clientReference] : [])];
      const result = await runWrite(ctx, { ...openAction(ctx, client, request, { argv, group, leg: 'reopen' }), renderSubmitted: () => {}, renderResolved: () => {}, confirmed: true }, SEND_AND_WAIT);
      if (result.kind === 'dry-run') return;
      const hedge = result.kind === 'resolved' ? result.result : undefined;
      if (hedge?.status === 'failed') throw new HedgeError(`The re-opened hedge ${safeText(hedge.id)} failed on-chain; nothing was opened.`);
      event({ event: 'reopen', ...base, notional_usd: decision.notionalUsd, tenor_days: row.tenorDays, hedge_ids: result.entry.hedge_id ? [result.entry.hedge_id] : [], journal_id: result.entry.id, ...drainMessages(deps.messages) });
      return;
    }
  }
}

/** --converge: one add, reduce or close through the write flow, journaled in a keep group. */
async function converge(ctx: CommandContext, row: KeepRow, decision: Extract<KeepDecision, { kind: 'drift' }>): Promise<JournalEntry> {
  const client = await ctx.client();
  const group = newGroup(ctx);
  const quietly = { renderSubmitted: () => {}, renderResolved: () => {}, confirmed: true } as const;
  const { market, side } = row;
  const result =
    decision.change === 'close'
      ? await runWrite(ctx, { ...closeAction(ctx, client, { market, side }, { argv: ['close', market, side], group, leg: 'converge' }), ...quietly }, SEND_AND_WAIT)
      : decision.change === 'open'
        ? undefined
        : await runWrite(
            ctx,
            { ...changeAction(ctx, client, decision.change, { market, side, notional_usd: decision.amountUsd }, { argv: [decision.change, market, side, String(decision.amountUsd)], group, leg: 'converge' }), ...quietly },
            SEND_AND_WAIT,
          );
  if (!result || result.kind === 'dry-run') throw new HedgeError('Nothing was sent for the convergence.');
  return result.entry;
}

function newGroup(ctx: CommandContext): string {
  return `${KEEP_GROUP_PREFIX}${new Date(ctx.clock.now()).toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
}

/** The entries of the newest journal group with this prefix for the row's side, made since `since`. */
async function newestGroup(ctx: CommandContext, prefix: string, row: KeepRow, since: string): Promise<JournalEntry[]> {
  const entries = await (await ctx.journal()).list({ since: Date.parse(since) - 1000 });
  const mine = entries.filter((entry) => entry.group?.startsWith(prefix) && bodyField(entry, 'market') === row.market && bodyField(entry, 'side') === row.side);
  const group = mine[0]?.group;
  return group ? mine.filter((entry) => entry.group === group) : [];
}

function bodyField(entry: JournalEntry, name: string): unknown {
  const body = entry.request?.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/**
 * Before the first cycle: every roll or keeper action this account left unresolved (a keeper
 * killed mid-step) is finished with its own keys, the book reconciled first by the write flow.
 */
async function finishUnfinished(
  ctx: CommandContext,
  identity: Awaited<ReturnType<typeof identityOf>>,
  deps: Pick<CycleDeps, 'event' | 'noteError' | 'messages'>,
): Promise<void> {
  const journal = await ctx.journal();
  const pending = (await journal.list({ pending: true })).filter(
    (entry) =>
      (entry.group?.startsWith(ROLL_GROUP_PREFIX) || entry.group?.startsWith(KEEP_GROUP_PREFIX)) &&
      entry.environment === identity.environment &&
      entry.base_url_host === identity.host &&
      entry.key_id === identity.keyId,
  );
  const done = new Set<string>();
  for (const entry of pending.reverse()) {
    if (done.has(entry.group!)) continue;
    done.add(entry.group!);
    const base = { market: String(bodyField(entry, 'market') ?? ''), side: String(bodyField(entry, 'side') ?? ''), journal_id: entry.group, resumed: true };
    try {
      if (entry.group!.startsWith(ROLL_GROUP_PREFIX)) {
        await resumeRoll(ctx, entry, { wait: true });
        const legs = (await journal.list()).filter((candidate) => candidate.group === entry.group);
        deps.event({ event: 'roll', ...base, hedge_ids: legs.map((leg) => leg.hedge_id).filter((id): id is string => typeof id === 'string'), ...drainMessages(deps.messages) });
      } else if (isUnresolved(entry)) {
        const client = await ctx.client();
        const body = (entry.request.body ?? {}) as Record<string, unknown>;
        const argv = Array.isArray(entry.argv) ? entry.argv.map(String) : [entry.command];
        const action = actionFromJournal(ctx, client, entry.command, body, argv, { group: entry.group, leg: entry.leg });
        if (!action) continue;
        const result = await runWrite(ctx, { ...action, renderSubmitted: () => {}, renderResolved: () => {}, confirmed: true }, { ...SEND_AND_WAIT, idempotencyKey: entry.idempotency_key });
        const kind = entry.leg === 'reopen' ? 'reopen' : 'converge';
        if (result.kind !== 'dry-run') deps.event({ event: kind, ...base, journal_id: result.entry.id, hedge_ids: result.entry.hedge_id ? [result.entry.hedge_id] : [], ...drainMessages(deps.messages) });
      }
    } catch (error) {
      deps.noteError(error, { ...base, phase: 'resume' });
    }
  }
}

function describeDecision(decision: KeepDecision): string {
  switch (decision.kind) {
    case 'hold':
      return decision.reason;
    case 'roll':
      return `roll due (matures ${new Date(decision.maturityAtMs).toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
    case 'reopen':
      return 'flat: re-open';
    case 'drift':
      return `drifted to ${decision.currentUsd} USD (target ${decision.targetUsd})`;
    case 'skip':
      return decision.reason;
  }
}

/** --alert-cmd: the event as JSON on the command's stdin; bounded, and never fatal to the keeper. */
function runAlertCommand(ctx: CommandContext, command: string, event: KeepEvent): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'], detached: false });
    const timer = setTimeout(() => child.kill('SIGKILL'), ALERT_COMMAND_BOUND_MS);
    child.on('error', (error) => {
      ctx.output.warn(`--alert-cmd could not run: ${safeText(error.message)}`);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0 && code !== null) ctx.output.warn(`--alert-cmd exited ${code} for a ${event.event} event.`);
      resolve();
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(`${JSON.stringify(event)}\n`);
  });
}


// What a keeper cycle does on the server: the book read, each row's step carried out through the
// flows every write uses (runWrite, runRoll, resume), in flight on its own. What to do and say is
// keeper-decide.ts's; nothing here decides.
import { rowKey, type EventFields, type KeepRow } from '../../core/keep-rules.js';
import type { JournalEntry } from '../../platform/journal/index.js';
import type { WritePorts } from '../write/ports.js';
import type { PlanStep } from '../../core/plan.js';
import { ownRowTest } from '../write/row-trust.js';
import { sameAccount, sentBy, type Identity } from '../write/identity.js';
import { answeredOpens } from '../write/wait.js';
import { runPreTradeChecks } from '../trade/pre-trade.js';
import { finishJournaled } from '../trade/resume.js';
import { newGroup, resumeRollOutcome, runRoll } from '../trade/roll.js';
import { runPlanWrite } from '../write/write-flow.js';
import { stepRecord } from '../trade/trade-actions.js';
import { sendTrade } from '../trade/change.js';
import { SideViews } from '../book/side-book.js';
import {
  decide,
  forgetDrift,
  heldReason,
  initialKeeperState,
  journalQuestion,
  KEEP_GROUP_PREFIX,
  ofKeeper,
  plan,
  preview,
  resumed,
  stepEnded,
  toResume,
  unresolvedSides,
  wouldSay,
  wrote,
  type KeeperSaid,
  type KeeperSettings,
  type KeeperState,
  type KeeperStep,
  type KeeperWrite,
  type SideObservation,
  type WriteDone,
} from './keeper-decide.js';

export interface KeeperClock {
  now(): number;
  /** Resolves after `ms`, or at once when `wake` aborts (a stop signal, a SIGHUP). */
  sleep(ms: number, wake: AbortSignal): Promise<void>;
}

/** How the keeper's parts say what they did: an event, or an error (a one-cycle run ends with its first's exit code). */
interface Say {
  event: (fields: EventFields) => void;
  noteError: (error: unknown, fields: Omit<EventFields, 'event'>) => void;
}

/** What the keeper remembers, in one place: a pure step's result is taken at once (never across an await), and what it said is said. */
export function keeperMemory(say: Say) {
  const tell = (one: KeeperSaid) => ('say' in one ? say.event(one.say) : say.noteError(one.error, one.fields));
  return {
    state: initialKeeperState(),
    tell,
    take<T extends { state: KeeperState; events: readonly KeeperSaid[] }>(out: T) {
      this.state = out.state;
      out.events.forEach(tell);
      return out;
    },
  };
}

/** The cycles: one step in flight per row, each row backing off on its own. `io` is what they do on the server (keeperIo's, or a test's), and the memory they take what they learn into. */
export function keeperCycles(
  settings: KeeperSettings,
  clock: KeeperClock,
  io: Pick<ReturnType<typeof keeperIo>, 'memory' | 'observe' | 'carry'>,
) {
  const { memory } = io;
  const inFlight = new Map<string, { kind: KeeperStep['kind']; sinceMs: number; done: Promise<void> }>();
  const start = (step: KeeperStep) => {
    const done = io.carry(step).then(
      () => ended(),
      (error: unknown) => ended({ error }),
    );
    // The row's status says how its step ended once it has (what --once and a dry run report).
    function ended(failure?: { error: unknown }) {
      try {
        step.status.state = memory.take(stepEnded(memory.state, step, clock.now(), settings, failure)).statusText;
      } finally {
        inFlight.delete(step.key);
      }
    }
    inFlight.set(step.key, { kind: step.kind, sinceMs: clock.now(), done });
    return done;
  };
  return {
    /** The sides (`MARKET side`) with a step in flight: the journal's unfinished actions of these are theirs. */
    busySides: () => new Set(inFlight.keys()),

    /** Waits for every step in flight (each bounded by its requests' own bounds). */
    async settle() {
      while (inFlight.size > 0) await Promise.all([...inFlight.values()].map((step) => step.done));
    },

    /** What each row would get on a fresh read (the question before a live keeper starts). */
    async preview(rows: readonly KeepRow[]) {
      return memory.take(preview(memory.state, await io.observe(rows), rows, settings)).lines;
    },

    forgetDrift: () => memory.take(forgetDrift(memory.state)),

    /** One cycle: every row's status (the live screen, the `cycle` event); its steps are awaited until `stepsDueBy` (always in a dry run), then left in flight. */
    async cycle(
      rows: readonly KeepRow[],
      unresolved: ReadonlyMap<string, string>,
      isStopping: () => boolean,
      stepsDueBy: number,
    ) {
      const book = await io.observe(rows).catch((error: unknown) => ({ error }));
      // Whether a stop came is asked after the read: a stop that came during it starts nothing.
      const observation = { rows, book, unresolved, inFlight, stopping: isStopping() };
      const cycle = memory.take(decide(memory.state, observation, clock.now(), settings));
      const started = cycle.actions.map(start);
      const timer = new AbortController();
      if (started.length)
        await Promise.race([
          Promise.all(started),
          ...(settings.dryRun ? [] : [clock.sleep(Math.max(0, stepsDueBy - clock.now()), timer.signal)]),
        ]).finally(() => timer.abort());
      return cycle;
    },
  };
}

const SEND_AND_WAIT = { wait: true, dryRun: false, fresh: false };

/** The keeper's reads and writes on the server, each under `stepContext()` (its notices said to no one, its signal the keeper's). Writes are confirmed by the keeper's own run (its target and --yes), never at a prompt. */
export function keeperIo(stepContext: () => WritePorts, settings: KeeperSettings & { identity: Identity }, say: Say) {
  const memory = keeperMemory(say);
  const observe = async (ports: WritePorts, rows: readonly KeepRow[]) => {
    const client = await ports.client();
    const sideViews = await SideViews.read(client, (line) => ports.log(line));
    const opened = await answeredOpens(ports);
    const time = client.transport.serverNow();
    // One side after the other, in the rows' order.
    const sides: SideObservation[] = [];
    for (const row of rows) {
      const side = {
        newest: sideViews.hedges.find((hedge) => rowKey(hedge) === rowKey(row)),
        book: await sideViews.book(row.market, row.side),
        opened: opened(row.market, row.side),
      };
      const asked = journalQuestion(memory.state, rowKey(row), side, time);
      sides.push(asked ? { ...side, closedByRoll: await closedByARoll(ports, asked) } : side);
    }
    return { sides, time, clock: client.transport.serverClock.reading() };
  };

  const carryOut = async (ports: WritePorts, write: KeeperWrite): Promise<WriteDone> => {
    const { market, side, clientReference } = write.row;
    // The row's deal reference on every hedge it opens (the rolled hedge's own when the row names none).
    if (write.kind === 'roll')
      return {
        kind: 'rolled',
        outcome: await runRoll(ports, {
          market,
          side,
          tenorDays: write.tenorDays!,
          skipChecks: false,
          write: SEND_AND_WAIT,
          ...(clientReference && { clientReference }),
        }),
      };
    // An add, reduce, close or re-open through the write flow, journaled in a keep group.
    const client = await ports.client();
    const group = newGroup(KEEP_GROUP_PREFIX, ports);
    const { kind: action, deltaUsd, tenorDays } = write;
    // Only an open takes its tenor and the row's deal reference.
    const step = { market, side, action, deltaUsd, tenorDays, clientReference: clientReference || undefined };
    const record = stepRecord(step as PlanStep, group, action === 'open' ? 'reopen' : 'converge');
    return {
      kind: 'sent',
      result: await sendTrade(ports, client, { ...record, approved: { by: 'run' } }, SEND_AND_WAIT),
      group,
    };
  };

  return {
    memory,
    /** The rows' sides read fresh, with the journal's answers to what the decisions ask of it. */
    observe: (rows: readonly KeepRow[]) => observe(stepContext(), rows),

    /** Carries out one row's step: a live one planned again on a fresh read under its side's lock. */
    async carry(step: KeeperStep) {
      const ports = stepContext();
      // A dry run: each write's pre-trade checks (those a real open passes), then what it would do, said.
      for (const write of step.writes ?? []) {
        const { check, say: fields } = wouldSay(write);
        const { market, side } = write.row;
        if (check)
          await runPreTradeChecks(
            await ports.client(),
            { market, side, notionalUsd: check.notionalUsd, action: 'open' },
            undefined,
            check.freedUsd,
          );
        say.event(fields);
      }
      if (step.writes) return;
      await runPlanWrite(ports, {
        sides: [step.row],
        run: async () => {
          const fresh = await observe(ports, [step.row]);
          const { writes } = memory.take(plan(memory.state, fresh, step.row, settings));
          const client = await ports.client();
          for (const write of writes) {
            const done = await carryOut(ports, write);
            // Counted from the server's time when the write landed (the bound is the server's, like maturities).
            const { failure } = memory.take(wrote(memory.state, write, done, client.transport.serverNow().latestMs));
            if (failure) throw failure;
          }
        },
      });
    },

    /** Finishes this keeper's own unresolved rows with their keys and returns why each other side of the account's unfinished rows is left alone: a new key could double an unresolved action; a person's rows are not the keeper's to finish. */
    async finishUnfinished(busy: ReadonlySet<string>, rows: readonly KeepRow[]) {
      const ports = stepContext();
      const journal = await ports.journal();
      const ours = async () =>
        (await journal.list({ pending: true })).filter((entry) => sentBy(settings.identity, entry));
      for (const resume of toResume(await ours(), busy, rows)) {
        let done: WriteDone | { kind: 'failed'; error: unknown } | undefined;
        try {
          if (resume.how === 'roll') {
            done = { kind: 'rolled', outcome: await resumeRollOutcome(ports, resume.entry, { wait: true }) };
          } else {
            const result = await finishJournaled(ports, await ports.client(), resume.entry, {
              wait: true,
              approved: { by: 'run' },
            });
            done = result && { kind: 'sent', result, group: resume.group };
          }
        } catch (error) {
          done = { kind: 'failed', error };
        }
        const said = done && resumed(resume, done);
        if (said) memory.tell(said);
      }
      const still = new Map<string, string>();
      // Any unfinished row of the account holds its side, through whichever host name it was sent.
      const account = (await journal.list({ pending: true })).filter((entry) => sameAccount(settings.identity, entry));
      for (const [key, entry] of unresolvedSides(account, busy))
        still.set(key, heldReason(entry, await journal.holderOf(entry.id)));
      return still;
    },
  };
}

/** Whether the journal shows this hedge closed by a roll or a keeper's action (this keeper before a restart, or a `hedge roll` whose open then failed): that side is to be covered again, not drift. */
async function closedByARoll(ports: WritePorts, hedgeId: string) {
  const [entries, own] = await Promise.all([(await ports.journal()).list(), ownRowTest(ports)]);
  // A close of the hedge (a roll's close leg, a convergence's close), or a roll's open planned to replace it — not the open that made it.
  const closes = (entry: JournalEntry) => entry.leg === 'close' || entry.request?.path?.endsWith('/close') === true;
  // A group whose close the server refused closed nothing: a close of that hedge since is a colleague's.
  const refused = new Set(entries.filter((entry) => closes(entry) && entry.outcome === 'rejected').map((e) => e.group));
  return entries.some(
    (entry) =>
      ofKeeper(entry.group) &&
      !refused.has(entry.group) &&
      ((closes(entry) && entry.hedge_id === hedgeId) || entry.context?.rolled_hedge_id === hedgeId) &&
      // Only a row this key sealed: one written into the store without it would turn a colleague's
      // close (left alone, reported as drift) into a side for the keeper to open again.
      own(entry),
  );
}

// The keeper soak on a server whose views trail the records: a simulator whose
// positions list, history and account show each change `viewLagMs` after the hedge records do, that
// takes several hedges per side (aggregated into one positions line), settles a hedge
// `settlementDelayMs` after its maturity (shown `filled` meanwhile) and has a short tenor day
// (`dayMs`), so maturities come every few seconds. The real `hedge keep target.csv` runs against it
// as a process, is killed with SIGKILL at seeded random moments and started again; another actor
// (`hedge add` from another desk: its own config folder, so it shares no lock with the keeper) adds
// to one side now and then. The soak judges by the server alone — its hedge records, its request
// log, its idempotency records — never by the keeper's output (its events are only counted).
//
// The clock: real time (speed 1) with a short day, not a fast clock. Everything the keeper measures
// in server time is then what a real service gives it: the views' lag and the settlement delay are
// seconds against its 2 s cycle, the 10 minutes it waits for its own write to show before it says
// "cannot tell" (keep.ts EXPECTATION_BOUND_MS) and the 24 h an Idempotency-Key is kept stay
// 10 minutes and 24 h. A fast clock would shrink those with the day (at 7200× a key outlives a
// restart by 12 s, and a 3 s lag would be 0.4 ms) and the Date header's whole seconds would be hours.
//
// roll_before and until are durations of server time (s, m, h, d), while a tenor counts the
// server's days: on a 30 s day a 1-day hedge lives 30 s, and the keeper cannot know the day is short.
// So every row states its roll_before, shorter than the short tenor: a row without one rolls 1 h
// before maturity (domain/keep.ts DEFAULT_ROLL_BEFORE_MS) — on a short day the moment it opens,
// every cycle, and never matures. (The keeper's own check, roll_before shorter than the tenor,
// counts real days: it accepts both.)
//   - the roll row: roll_before a share of the day long enough for a whole roll (its close and open
//     each wait for the positions list, one lag each) to land well before the maturity. A roll is not
//     sent when its close may land after the maturity (within a request's bound: --request-timeout,
//     REQUEST_TIMEOUT_S here, as the default 15 s would outlast roll_before): the hedge then settles
//     and is re-opened, as on the settle row;
//   - the settle row: roll_before 0, never rolled: its hedges mature, stay `filled` for the
//     settlement delay (the side is "settling": held), settle, and the keeper re-opens the side
//     once every view shows it flat.
// No row has an until: a row's near-until tenor is counted in real days (domain/keep.ts tenorFor),
// which on a short day would shorten nothing — it is left to the keep tests on a normal day.
//
// Checks (each a `problems` line when it fails):
//   over       at every sample (every `sampleMs`, on the server's state at its own time), per side:
//              what its live hedges hold (submitted and filled, pending adds included) ≤ target +
//              the keeper's --tolerance + what the other actor's accepted adds on that side came to
//              by then;
//   twice      on the hedge records, exactly: no hedge of a side was opened while another of that
//              side was live (submitted or filled, from its opened_at to its closed_at) — the
//              keeper never opens a side twice, and the other actor only adds;
//   reference  every POST /hedges the server received carries its row's client_reference, every
//              hedge on the server carries it, and every hedge is one a logged POST /hedges created
//              (its idempotency record names it);
//   settled    no close was sent on a side whose hedge had settled. Precisely: for each POST
//              /hedges/close that acted or was refused (a replay of a key the server had already
//              answered 2xx is not a send), at the server time T it arrived: the side must hold a
//              live hedge on its records at T (else its last hedge had settled or been closed by T:
//              a close on a settled side), and none of its live hedges may be past its maturity_at
//              at T (a hedge past maturity is settling; the close would end early what the
//              settlement was about to end — a roll after maturity);
//   count      at least `maturities` maturities — hedges ended by settlement or by a roll's close —
//              at least two of them after the last restart (the keeper carried on after it), and
//              every planned kill happened; a run that does not get there within `maxWallMs` has
//              stalled.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { HedgeState } from '../../src/sandbox/engine-state.js';
import { runHedge, type RunResult } from '../support/hedge-cli.js';
import { iso, outFile, round2, soakKeepers, soakSetting, stopKeeper } from './keeper-process.js';
import { MARKET, startSimulator } from '../support/simulator.js';
import { randomStream } from '../support/random-stream.js';

type Side = 'buy' | 'sell';
const SIDES: readonly Side[] = ['buy', 'sell'];

/** The other actor's add (USD), the keeper's --tolerance (USD), and the real ms between two samples of the server's state. */
const ADD_USD = 250;
const TOLERANCE_USD = 0;
const SAMPLE_MS = 1_000;
/** The keepers' --request-timeout (s): the bound within which a roll's close lands, shorter than the roll row's roll_before. */
const REQUEST_TIMEOUT_S = 2;

/**
 * A run's settings, as its runner (scripts/soak-keeper.mjs) sets them: it ends once the server shows
 * at least `maturities` maturities (settlements + rolls); `kills` SIGKILLs of the keeper, each
 * followed by a restart; `adds` `hedge add` runs of the other actor on the roll row's side; `dayMs`
 * the sandbox ms of one tenor day; `rollBefore` the roll row's roll_before, as the target file says
 * it (e.g. `12s`); `intervalS` the keeper's --interval (seconds).
 */
export function keeperSoakOptions() {
  const number = (name: string) => Number(soakSetting(`HEDGE_KEEPER_SOAK_${name}`));
  return {
    seed: number('SEED'),
    maturities: number('MATURITIES'),
    kills: number('KILLS'),
    adds: number('ADDS'),
    // A roll is decided within a cycle of its roll_before and its close sent at once: it reaches the
    // server seconds before the maturity, and its open (shown a lag later) follows.
    dayMs: number('DAY_MS'),
    viewLagMs: number('LAG_MS'),
    settlementDelayMs: number('SETTLEMENT_DELAY_MS'),
    rollBefore: soakSetting('HEDGE_KEEPER_SOAK_ROLL_BEFORE'),
    intervalS: number('INTERVAL'),
    samplesFile: soakSetting('HEDGE_KEEPER_SOAK_SAMPLES'),
    keeperLogFile: soakSetting('HEDGE_KEEPER_SOAK_KEEPER_LOG'),
  };
}
type KeeperSoakOptions = ReturnType<typeof keeperSoakOptions>;

/** The two rows of the target file. */
const ROWS = {
  roll: { side: 'buy', notionalUsd: 1000, reference: 'SOAK-ROLL' },
  settle: { side: 'sell', notionalUsd: 1500, reference: 'SOAK-SETTLE' },
} as const;

/** Resolves after `ms`, or at once when `stop` aborts (the run ended: nothing waits for a moment planned past it). */
const sleep = (ms: number, stop?: AbortSignal) =>
  delay(Math.max(0, ms), undefined, { signal: stop }).catch(() => undefined);

const rowOf = (side: Side) => (side === ROWS.roll.side ? ROWS.roll : ROWS.settle);

/**
 * About how long the run takes (real ms), to spread the kills and adds over it: a rolled side turns
 * over once per day less its roll_before plus the roll (two lags: its close, then its open, shown),
 * a settling side once per day plus the settlement delay, a lag and the re-open (a lag).
 */
function estimatedRunMs(options: KeeperSoakOptions) {
  const rollBeforeMs = parseFloat(options.rollBefore) * 1000;
  const cycleMs = options.intervalS * 1000;
  const rollPeriod = options.dayMs - rollBeforeMs + 2 * options.viewLagMs + 2 * cycleMs;
  const settlePeriod = options.dayMs + options.settlementDelayMs + 2 * options.viewLagMs + 2 * cycleMs;
  return options.maturities / (1 / rollPeriod + 1 / settlePeriod);
}

/** A keeper that stops making maturities is a stall: the run gives up (a problem) at three times what it should take. */
export const maxWallMs = (options: KeeperSoakOptions) => 3 * estimatedRunMs(options) + 30_000;

/** A request the server answered with success. */
const ok = (entry: { status: unknown }) => typeof entry.status === 'number' && entry.status < 300;
/** A logged request's body, as JSON. */
const bodyOf = (entry: { body: unknown }) => (entry.body ?? {}) as Record<string, any>;

export async function runKeeperSoak(options: KeeperSoakOptions) {
  const wallStart = Date.now();
  const realMs = () => Date.now() - wallStart;
  const sim = await startSimulator({
    seed: options.seed,
    fillDelayMs: 100,
    viewLagMs: options.viewLagMs,
    severalPerSide: true,
    settlementDelayMs: options.settlementDelayMs,
    dayMs: options.dayMs,
  });
  const fillDelayMs = sim.sandbox.engine.fillDelayMs;
  const serverNow = () => sim.sandbox.clock.now();
  const errorCodes: string[] = [];
  const keepers = soakKeepers(sim, options.keeperLogFile, (name, event) => {
    // An alert started by an error repeats that error's fields (event `error`, `alert`): counted once, as the error.
    if (name === 'error' && event.alert === undefined)
      errorCodes.push(`${event.code}${event.action ? ` (${event.action})` : event.phase ? ` (${event.phase})` : ''}`);
  });
  const samplesOut = outFile(options.samplesFile);
  // The other actor's desk: its own config folder and journal, so it takes none of the keeper's locks.
  const actorDir = mkdtempSync(join(tmpdir(), 'hedge-soak-actor-'));
  let stopping = false;
  const stop = new AbortController();
  try {
    const file = join(sim.configDir, 'target.csv');
    // The roll row, then the settle row (why their roll_before: the header comment).
    writeFileSync(
      file,
      [
        'market,side,notional_usd,tenor_days,client_reference,until,roll_before',
        `${MARKET},${ROWS.roll.side},${ROWS.roll.notionalUsd},1,${ROWS.roll.reference},,${options.rollBefore}`,
        `${MARKET},${ROWS.settle.side},${ROWS.settle.notionalUsd},1,${ROWS.settle.reference},,0`,
        '',
      ].join('\n'),
    );
    const hedges = () => sim.hedges().filter((hedge) => hedge.market === MARKET);
    const endOf = (hedge: HedgeState) =>
      hedge.closedAtMs ??
      (hedge.status === 'failed' ? (hedge.filledAtMs ?? hedge.openedAtMs + fillDelayMs) : Number.POSITIVE_INFINITY);
    /** Submitted or filled at `atMs`: from its open's acceptance to its close, settlement or failure. */
    const liveAt = (hedge: HedgeState, atMs: number) => hedge.openedAtMs <= atMs && atMs < endOf(hedge);
    /** Adds of the other actor the server took (acted on, or not answered yet) on a side by `atMs`. */
    const addedBy = (side: Side, atMs: number) =>
      sim
        .requests('POST', '/hedges/add')
        .filter((entry) => bodyOf(entry).side === side && entry.sandboxTimeMs <= atMs)
        .filter((entry) => entry.status === 'pending' || ok(entry))
        .reduce((sum, entry) => sum + Number(bodyOf(entry).notional_usd ?? 0), 0);
    const keeperWrites = () =>
      sim.requests('POST').filter((entry) => entry.path === '/hedges' || entry.path === '/hedges/close');
    const maturedHedges = () => hedges().filter((hedge) => hedge.status === 'closed');
    const afterRestart = (matured: HedgeState[]) =>
      matured.filter((hedge) => (hedge.closedAtMs ?? 0) > lastRestartServerMs).length;

    // ---- samples of the server's own state ------------------------------------------------
    samplesOut.write(
      'real_ms,server_ms,keeper,buy_held_usd,buy_bound_usd,buy_live,sell_held_usd,sell_bound_usd,sell_live\n',
    );
    const measure = () => {
      // The server's state at its own time: what became due (fills, landings, settlements) applied first, as a request would.
      const serverMs = serverNow();
      sim.sandbox.engine.advanceTo(serverMs);
      const of = (side: Side) => {
        const live = sim.active(side);
        const held = live.reduce(
          (sum, hedge) =>
            sum + hedge.notionalUsd + (hedge.pendingChange?.action === 'add' ? hedge.pendingChange.notionalUsd : 0),
          0,
        );
        return {
          held: round2(held),
          bound: round2(rowOf(side).notionalUsd + TOLERANCE_USD + addedBy(side, serverMs)),
          live: live.length,
        };
      };
      return { realMs: realMs(), serverMs, keeper: keepers.number, buy: of('buy'), sell: of('sell') };
    };
    const samples: ReturnType<typeof measure>[] = [];
    const sample = () => {
      const entry = measure();
      samples.push(entry);
      samplesOut.write(
        `${[entry.realMs, entry.serverMs, entry.keeper, ...SIDES.flatMap((side) => Object.values(entry[side]))]}\n`,
      );
      return entry;
    };

    // ---- the keeper process -----------------------------------------------------------------
    /** A keeper started, and when (server time): the last restart. */
    const startKeeper = () => {
      keepers.start([
        'keep',
        file,
        '--interval',
        `${options.intervalS}`,
        '--tolerance',
        `${TOLERANCE_USD}`,
        '--request-timeout',
        `${REQUEST_TIMEOUT_S}`,
        '--json',
      ]);
      lastRestartServerMs = serverNow();
    };

    // ---- kills and the other actor, at seeded moments over the run's expected length ----------
    const random = randomStream(options.seed ^ 0x4b33);
    const expectedMs = estimatedRunMs(options);
    // Every other kill lands right after one of the keeper's own writes reached the server (a roll
    // between its close and its open, a re-open waiting for its fill): the moments a kill costs most.
    const killPlan = Array.from({ length: options.kills }, (_, index) => ({
      atMs: (0.08 + 0.72 * random()) * expectedMs,
      targeted: index % 2 === 1,
      afterWriteMs: Math.round(random() * 2500),
      pauseMs: Math.round(random() * 1000),
    })).sort((a, b) => a.atMs - b.atMs);
    const addPlan = Array.from({ length: options.adds }, () => (0.1 + 0.75 * random()) * expectedMs).sort(
      (a, b) => a - b,
    );
    /** The kills made: each killed right after one of the keeper's own writes reached the server, or at a uniform moment. */
    const kills: typeof killPlan = [];
    let lastRestartServerMs = Number.NEGATIVE_INFINITY;

    const killer = (async () => {
      for (const plan of killPlan) {
        await sleep(plan.atMs - realMs(), stop.signal);
        if (plan.targeted) {
          const seen = keeperWrites().length;
          while (!stopping && keeperWrites().length === seen) await sleep(20);
          await sleep(plan.afterWriteMs, stop.signal);
        }
        if (stopping || !keepers.current) return;
        const serverMs = serverNow();
        await stopKeeper(keepers.current, 'SIGKILL');
        kills.push(plan);
        console.log(
          `kill -9 of keeper ${keepers.number} at server ${iso(serverMs)}${plan.targeted ? ' (after its write)' : ''}; ${maturedHedges().length} maturities so far`,
        );
        // Started again after a pause of up to a second, as a supervisor would.
        await sleep(plan.pauseMs, stop.signal);
        if (stopping) return;
        startKeeper();
      }
    })();

    const addRuns: RunResult[] = [];
    let addsDone = false;
    const actor = (async () => {
      for (const atMs of addPlan) {
        await sleep(atMs - realMs(), stop.signal);
        if (stopping) return;
        // Its exit is only counted: what it did is read from the server (its accepted POST /hedges/add).
        // --again: each add is meant (hedge refuses an identical write within 10 minutes of the last,
        // exit 11). Refused (exit 3: the side is bare in the middle of a roll, or a change of it is
        // landing), the colleague tries again a moment later, a few times.
        for (let attempt = 0; attempt < 8 && !stopping; attempt += 1) {
          if (attempt) await sleep(1500, stop.signal);
          const result = await runHedge(['add', MARKET, ROWS.roll.side, String(ADD_USD), '--again', '--json'], {
            configDir: actorDir,
            env: sim.env,
            timeoutMs: 90_000,
          }).catch((error: unknown) => ({ code: null, stderr: String(error) }) as RunResult);
          addRuns.push(result);
          keepers.log.write(`other actor: exit ${result.code}\n${result.stderr}`);
          const said = result.code === 0 ? '' : `: ${result.stderr.trim().split('\n').at(-1) ?? ''}`;
          console.log(
            `other actor: hedge add ${MARKET} ${ROWS.roll.side} ${ADD_USD} exited ${result.code ?? 'on its time bound'}${said.slice(0, 200)}`,
          );
          if (result.code !== 3) break;
        }
      }
      addsDone = true;
    })();

    // ---- the run: a sample every sampleMs until the count is reached ------------------------
    startKeeper();
    const problems: string[] = [];
    let nextProgress = 0;
    let nextSample = realMs();
    for (;;) {
      // On a fixed schedule, not after each sample's own work: one every sampleMs.
      nextSample += SAMPLE_MS;
      await sleep(nextSample - realMs());
      const s = sample();
      const matured = maturedHedges();
      const afterLast = afterRestart(matured);
      if (s.realMs >= nextProgress) {
        console.log(
          `${(s.realMs / 1000).toFixed(0)} s: ${matured.length} maturities, ${kills.length} kills, buy ${s.buy.held}/${s.buy.bound} sell ${s.sell.held}/${s.sell.bound}`,
        );
        nextProgress = s.realMs + 30_000;
      }
      const killsDone = kills.length >= options.kills;
      // Every planned kill and add done too: a run that reaches its count early still has them all.
      if (matured.length >= options.maturities && killsDone && addsDone && afterLast >= 2) break;
      if (s.realMs > maxWallMs(options)) {
        problems.push(
          `stalled: ${matured.length} maturities (${afterLast} after the last restart), ${kills.length} of ${options.kills} kills and ${addsDone ? 'every' : 'not every'} add in ${Math.round(s.realMs / 1000)} s, the bound`,
        );
        break;
      }
    }
    stopping = true;
    stop.abort();
    await killer;
    await actor;
    await stopKeeper(keepers.current!);
    sample();
    await samplesOut.end();

    // ---- the checks, on the server's records and request log ---------------------------------
    for (const s of samples)
      for (const side of SIDES)
        // Notionals that differ by less than a cent agree (money is booked to the cent).
        if (s[side].held > s[side].bound + 0.005)
          problems.push(
            `over: at ${iso(s.serverMs)} (keeper ${s.keeper}) the ${side} side held ${s[side].held} USD in ${s[side].live} hedges, above target + tolerance + other actors' adds = ${s[side].bound}`,
          );
    const all = hedges();
    const sideOf = (side: Side) => all.filter((hedge) => hedge.side === side);
    for (const hedge of all)
      for (const other of sideOf(hedge.side))
        if (other !== hedge && other.openedAtMs <= hedge.openedAtMs && liveAt(other, hedge.openedAtMs))
          problems.push(
            `twice: ${hedge.id} (${hedge.side}, ${hedge.notionalUsd} USD) was opened at ${iso(hedge.openedAtMs)} while ${other.id} (${other.notionalUsd} USD, ${other.status}) was live on the side`,
          );
    const created = new Set<string>();
    for (const entry of sim.requests('POST', '/hedges')) {
      const body = bodyOf(entry);
      const expected = SIDES.includes(body.side) ? rowOf(body.side).reference : undefined;
      if (body.client_reference !== expected)
        problems.push(
          `reference: POST /hedges at ${iso(entry.sandboxTimeMs)} (${body.side}) carried client_reference ${JSON.stringify(body.client_reference)}, its row's is ${expected}`,
        );
      // The hedge its answer named, from the server's idempotency record of its key.
      const record = Object.entries(sim.sandbox.engine.state.idempotency).find(([scope]) =>
        scope.endsWith(`:${entry.idempotencyKey}`),
      )?.[1];
      const data = ok(entry) && entry.idempotencyKey && record ? JSON.parse(record.bodyJson)?.data : undefined;
      const id = data?.hedge_id ?? data?.id;
      if (id) created.add(id);
    }
    for (const hedge of all) {
      if (hedge.clientReference !== rowOf(hedge.side).reference)
        problems.push(
          `reference: hedge ${hedge.id} (${hedge.side}) carries ${JSON.stringify(hedge.clientReference)}, its row's is ${rowOf(hedge.side).reference}`,
        );
      if (!created.has(hedge.id))
        problems.push(
          `reference: hedge ${hedge.id} (${hedge.side}) is not named by the answer of any POST /hedges in the request log`,
        );
    }
    const answered = new Set<string | null>();
    for (const entry of sim.requests('POST', '/hedges/close')) {
      if (answered.has(entry.idempotencyKey)) continue;
      if (ok(entry) && entry.idempotencyKey) answered.add(entry.idempotencyKey);
      const side: Side = bodyOf(entry).side;
      if (!SIDES.includes(side)) continue;
      const at = entry.sandboxTimeMs;
      const ofSide = sideOf(side);
      const live = ofSide.filter((hedge) => liveAt(hedge, at));
      if (live.length === 0) {
        const last = ofSide.filter((hedge) => endOf(hedge) <= at).sort((a, b) => endOf(b) - endOf(a))[0];
        const how = last
          ? `${last.id} had ${last.closeReason === 'settled' ? 'settled' : `ended (${last.closeReason ?? last.status})`} at ${iso(endOf(last))}`
          : 'it had no hedge yet';
        problems.push(
          `settled: a close of the ${side} side arrived at ${iso(at)} (${entry.status}${entry.errorCode ? ` ${entry.errorCode}` : ''}) with nothing live on it: ${how}`,
        );
        continue;
      }
      for (const hedge of live.filter((candidate) => candidate.maturityAtMs <= at))
        problems.push(
          `settled: a close of the ${side} side arrived at ${iso(at)}, ${at - hedge.maturityAtMs} ms after ${hedge.id} matured (${iso(hedge.maturityAtMs)}): its settlement was due, not a roll`,
        );
    }
    const matured = maturedHedges();
    const settled = matured.filter((hedge) => hedge.closeReason === 'settled').length;
    const afterLastRestart = afterRestart(matured);
    if (matured.length < options.maturities)
      problems.push(`count: ${matured.length} maturities, at least ${options.maturities} expected`);
    if (afterLastRestart < 2)
      problems.push(
        `count: ${afterLastRestart} maturities after the last restart, at least 2 expected (the keeper carried on after it)`,
      );
    if (kills.length < options.kills) problems.push(`count: ${kills.length} of ${options.kills} kills happened`);

    // ---- figures ---------------------------------------------------------------------------
    /** Settled hedges whose side the keeper opened again. */
    const reopens = all.filter(
      (hedge) =>
        hedge.closeReason === 'settled' &&
        all.some((other) => other.side === hedge.side && other.openedAtMs >= endOf(hedge)),
    ).length;
    const worst = (side: Side) => round2(Math.max(...samples.map((s) => s[side].held - s[side].bound)));
    const acceptedAdds = sim.requests('POST', '/hedges/add').filter(ok).length;
    return {
      samples,
      kills,
      keepers: keepers.number,
      maturities: { settled, rolled: matured.length - settled, total: matured.length, afterLastRestart },
      hedges: all.length,
      adds: { runs: addRuns.length, accepted: acceptedAdds, exits: addRuns.map((run) => String(run.code)) },
      worstMarginUsd: { buy: worst('buy'), sell: worst('sell') },
      reopens,
      events: keepers.events,
      errorCodes,
      wallMs: realMs(),
      serverMs: samples.at(-1)!.serverMs - samples[0].serverMs,
      problems,
    };
  } finally {
    stopping = true;
    stop.abort();
    await keepers.close();
    await samplesOut.end();
    await sim.close();
    rmSync(actorDir, { recursive: true, force: true });
  }
}

/** The figures, one per line, as the script prints them (worstMarginUsd: the largest held − bound per side, ≤ 0 when never above). */
export function describeKeeperSoak(result: Awaited<ReturnType<typeof runKeeperSoak>>, options: KeeperSoakOptions) {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const { maturities: m } = result;
  return [
    `keeper soak: seed ${options.seed}, day ${s(options.dayMs)}, view lag ${s(options.viewLagMs)}, settlement delay ${s(options.settlementDelayMs)}, several hedges per side, roll row roll_before ${options.rollBefore}, keeper --interval ${options.intervalS} --tolerance ${TOLERANCE_USD} --request-timeout ${REQUEST_TIMEOUT_S}`,
    `maturities: ${m.total} (${m.rolled} rolled, ${m.settled} settled late, ${result.reopens} re-opened), ${m.afterLastRestart} after the last restart; ${result.hedges} hedges on the server`,
    `kills: ${result.kills.length} kill -9 (${result.kills.filter((kill) => kill.targeted).length} right after a keeper write), ${result.keepers} keeper processes`,
    `other actor: ${result.adds.runs} hedge add runs (exits ${result.adds.exits.join(', ') || 'none'}), ${result.adds.accepted} accepted by the server`,
    `samples: ${result.samples.length} (every ${SAMPLE_MS} ms); worst held − bound: buy ${result.worstMarginUsd.buy} USD, sell ${result.worstMarginUsd.sell} USD`,
    `keeper events: ${JSON.stringify(result.events)}; errors: ${result.errorCodes.join('; ') || 'none'}`,
    `wall time: ${s(result.wallMs)} (server time ${s(result.serverMs)})`,
    result.problems.length === 0 ? 'all checks passed' : `PROBLEMS:\n  ${result.problems.join('\n  ')}`,
  ];
}

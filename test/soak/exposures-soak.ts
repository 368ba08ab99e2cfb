// The exposures soak: a simulator on a fast clock (the server
// `hedge sandbox serve --clock-speed` starts, test/support/simulator.ts), a schedule of exposures
// over `days` server days, the real `hedge keep FILE --exposures` running against it, killed with
// SIGKILL at random moments and started again. The server's own book is sampled after every keeper
// cycle (its `cycle` event) and between cycles (a tick every TICK_MS of real time), each sample
// against the target the project's exposures rules (domain/exposures.ts) give at that server time
// and the server's price then. After the last due date the keeper is stopped and
// `hedge exposures FILE --report --json` is reconciled with the server's history.
//
// Checks (each a `problems` line when it fails):
//   band      at ≥ 99% of the cycle samples every side is within the policy's band of the target the
//             keeper is asked to hold then (targetRowsAt with its due lead: two cycles);
//   above     at no sample (cycle or tick) does a side hold more than exposure × ratio + band (the
//             target at that instant, no lead) — 1 cent of rounding allowed;
//   flat      at every sample from the last due date on, both sides hold nothing;
//   report    its cost per market (closed hedges, carry, fees) equals the server's history summed in
//             cents, and its coverage's hedged_usd each week equals what the server's hedges held then.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseExposuresFile, type Exposure } from '../../src/features/exposures/exposures-file.js';
import {
  DEFAULT_POLICY,
  amountUsd,
  coverSide,
  targetBook,
  targetRowsAt,
} from '../../src/features/exposures/exposures-rules.js';
import { MARKET_MODEL, midPrice } from '../../src/sandbox/market-model.js';
import { hashString } from '../../src/sandbox/prng.js';
import { filledActive } from '../support/keeper.js';
import { iso, outFile, round2, soakKeepers, soakSetting, stopKeeper } from './keeper-process.js';
import { MARKET, startSimulator, type Simulator } from '../support/simulator.js';
import { randomStream } from '../support/random-stream.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A schedule from `id type amount currency due` lines, each due that many of `days` after the start. */
function scheduleOf(lines: string, days: number) {
  return lines
    .trim()
    .split('\n')
    .map((line) => {
      const [id, type, amount, currency, due] = line.trim().split(/\s+/);
      return { id, type, amount: Number(amount), currency, dueShare: Number(due) / days };
    });
}
/** One exposure of the schedule: its due date as a share (0..1) of the soak's days after the start (so a short soak keeps its shape). */
type ScheduledExposure = ReturnType<typeof scheduleOf>[number];

/**
 * The 90-day schedule: receivables and payables, NGN and USD amounts (a USD amount carries no risk
 * in USD books: never covered), due at 14:00 UTC on odd days, so inside a 7-day hedge's tenor.
 * At the start the net buy target is ≈ 0.53 M USD (under the simulator's 1 M exposure cap).
 */
const NINETY_DAY_SCHEDULE = scheduleOf(
  `
  INV-1 receivable 300e6   NGN 12.6
  FRT-2 payable    120e6   NGN 20.6
  AR-3  receivable 150000  USD 35.6
  INV-4 receivable 450e6   NGN 45.6
  AP-5  payable    100000  USD 60.6
  FRT-6 payable    200e6   NGN 70.6
  INV-7 receivable 600e6   NGN 88.6`,
  90,
);

/** For a soak of fewer than 30 days: the same kinds of rows, dues far enough apart for a 2 s cycle. */
const SHORT_SCHEDULE = scheduleOf(
  `
  INV-1 receivable 300e6  NGN 0.4
  FRT-2 payable    120e6  NGN 0.7
  AP-3  payable    100000 USD 0.5
  INV-4 receivable 450e6  NGN 0.95`,
  1,
);

/**
 * A run's settings, as its runner (scripts/soak-exposures.mjs) sets them: `clockSpeed` server ms per
 * real ms, `intervalS` the keeper's --interval (seconds, real time); the 90-day schedule (three
 * buckets, seven rows) from 30 days up, a few rows for a short soak; every sample written to
 * `samplesFile` (CSV), the keepers' events and stderr appended to `keeperLogFile`.
 */
export function soakOptions() {
  const number = (name: string) => Number(soakSetting(`HEDGE_SOAK_${name}`));
  const days = number('DAYS');
  return {
    days,
    seed: number('SEED'),
    kills: number('KILLS'),
    clockSpeed: number('CLOCK_SPEED'),
    intervalS: number('INTERVAL'),
    schedule: days >= 30 ? NINETY_DAY_SCHEDULE : SHORT_SCHEDULE,
    samplesFile: soakSetting('HEDGE_SOAK_SAMPLES'),
    keeperLogFile: soakSetting('HEDGE_SOAK_KEEPER_LOG'),
  };
}
type SoakOptions = ReturnType<typeof soakOptions>;
/** Real ms between two samples taken between cycles. */
const TICK_MS = 250;

/** The exposures file of a schedule from `startMs`: dues at 14:00 UTC of their day, written with their zone. */
function exposuresCsv(schedule: readonly ScheduledExposure[], startMs: number, days: number) {
  const rows = schedule.map((row) => {
    const raw = startMs + row.dueShare * days * DAY_MS;
    // Long soaks: 14:00 UTC of the day (inside any hedge's tenor); short ones keep the exact share.
    const due = days >= 10 ? Math.floor(raw / DAY_MS) * DAY_MS + 14 * HOUR_MS : Math.round(raw / 1000) * 1000;
    return `${row.id},${MARKET},${row.type},${row.amount},${row.currency},${iso(due).replace('.000Z', '+00:00')},`;
  });
  return ['id,market,type,amount,currency,due,hedge_ratio', ...rows].join('\n') + '\n';
}

function sideTargets(rows: Record<string, any>[]) {
  const of = (side: string) =>
    rows.filter((row) => row.side === side).reduce((total, row) => total + (row.notionalUsd ?? row.target_usd ?? 0), 0);
  return { buy: of('buy'), sell: of('sell') };
}

/** How far `held` is above `target` + band (0 when it is not). */
function aboveBy(held: number, target: number) {
  const ceiling = target * (1 + DEFAULT_POLICY.bandPct / 100) + 0.01;
  return held > ceiling ? round2(held - ceiling) : 0;
}

function withinBandOf(held: number, target: number) {
  return Math.abs(held - target) <= (target * DEFAULT_POLICY.bandPct) / 100 + 0.01;
}

export async function runExposuresSoak(options: SoakOptions) {
  const wallStart = Date.now();
  const sim = await startSimulator({ clockSpeed: options.clockSpeed, seed: options.seed, fillDelayMs: 100 });
  const serverNow = () => sim.sandbox.clock.now();
  /** The server time of the running keeper's previous cycle (its due lead is two cycles). */
  let lastCycleServerMs: number | undefined;
  let onCycle: (serverMs: number | undefined, targetUsd: number) => void = () => {};
  const errorCodes: string[] = [];
  const keepers = soakKeepers(sim, options.keeperLogFile, (name, event, number) => {
    if (name === 'error') errorCodes.push(`${event.code} (${event.phase ?? ''})`);
    if (name === 'cycle' && number === keepers.number) {
      const read = Date.parse(String(event.server_time));
      onCycle(
        Number.isFinite(read) ? read : undefined,
        ((event.rows ?? []) as any[]).reduce((sum, row) => sum + (row.target_usd ?? 0), 0),
      );
    }
  });
  // Every kill and restart planned (clearing one that has run does nothing).
  const timers: NodeJS.Timeout[] = [];
  try {
    const file = join(sim.configDir, 'exposures.csv');
    // The first keeper starts on an exposure without risk (USD: nothing to cover), and the schedule
    // is written from the server's time once it has cycled: its start-up (seconds on a loaded
    // machine, hours of server time) costs none of the schedule.
    const riskless = { id: 'USD-0', type: 'payable', amount: 1000, currency: 'USD', dueShare: 1 };
    writeFileSync(file, exposuresCsv([riskless], serverNow(), options.days));
    const startKeeper = () => {
      lastCycleServerMs = undefined;
      return keepers.start(['keep', file, '--exposures', '--interval', String(options.intervalS), '--json']);
    };

    const first = startKeeper();
    await new Promise<void>((resolve, reject) => {
      onCycle = () => resolve();
      first.once('exit', (code) => reject(new Error(`the first keeper exited (${code}) before its first cycle`)));
    });
    const startMs = serverNow();
    const csv = exposuresCsv(options.schedule, startMs, options.days);
    writeFileSync(file, csv);
    const parsed = parseExposuresFile(csv, { sourceName: 'exposures.csv' });
    if ('problems' in parsed)
      throw new Error(`the soak's own exposures file is bad: ${JSON.stringify(parsed.problems)}`);
    const exposures = parsed.rows;
    const lastDueMs = Math.max(
      ...exposures
        .filter((exposure) => coverSide(exposure, DEFAULT_POLICY.functional) !== undefined)
        .map((exposure) => exposure.dueMs),
    );
    const endMs = lastDueMs + Math.max(DAY_MS / 4, 2 * options.intervalS * 1000 * options.clockSpeed);
    // How far a short run may go on past its end on a loaded machine (the loop below says why).
    const lastEndMs = endMs + (endMs - startMs);
    const market = MARKET_MODEL.catalogue.find((definition) => definition.market === MARKET)!;
    const priceAt = (ms: number) => midPrice(hashString(String(options.seed)), market, ms);
    const intervalMs = options.intervalS * 1000;

    const csvOut = outFile(options.samplesFile);
    /**
     * A sample of the server's book: what it holds and exposure × ratio (no lead) per side; after a
     * cycle (`cycleServerMs`: the server time the keeper's cycle read, its `cycle` event's
     * server_time) also what the keeper was asked to hold then and whether the book was within the
     * band of it; `aboveUsd`, USD above exposure × ratio + band on the worse side (0 when not above).
     * Its keys, in order, are the samples file's columns (server times in ms).
     */
    const measure = (kind: 'cycle' | 'tick', cycleServerMs?: number) => {
      // The server's state at its own time: what became due (fills, maturities) applied first, as a request would.
      const serverMs = serverNow();
      sim.sandbox.engine.advanceTo(serverMs);
      const heldOn = (side: 'buy' | 'sell') =>
        round2(filledActive(sim, side).reduce((total, hedge) => total + hedge.notionalUsd, 0));
      const heldBuy = heldOn('buy');
      const heldSell = heldOn('sell');
      const price = priceAt(serverMs);
      const target = sideTargets(targetBook(exposures, DEFAULT_POLICY, { [MARKET]: price }, serverMs));
      const readMs = cycleServerMs ?? serverMs;
      let keeper;
      if (kind === 'cycle') {
        // What the keeper was asked to hold in this cycle: the target at the time its cycle read the
        // server, at the price then, with its lead of two cycles (the server time between its cycles;
        // a keeper restarted on a fast clock measures that rate before its first cycle).
        // Every keeper here starts with the server's clock minutes from ours (5 server minutes are a
        // few ms of ours), so it measures the rate before its first cycle.
        const cycleMs = Math.max(intervalMs * options.clockSpeed, readMs - (lastCycleServerMs ?? readMs));
        lastCycleServerMs = readMs;
        keeper = sideTargets(
          targetRowsAt(exposures, DEFAULT_POLICY, { [MARKET]: priceAt(readMs) }, readMs, {}, 2 * cycleMs),
        );
      }
      return {
        kind,
        keeper: keepers.number,
        realMs: Date.now() - wallStart,
        serverMs,
        price,
        heldBuy,
        heldSell,
        targetBuy: round2(target.buy),
        targetSell: round2(target.sell),
        keeperReadMs: keeper && readMs,
        keeperBuy: keeper && round2(keeper.buy),
        keeperSell: keeper && round2(keeper.sell),
        inBand: keeper && withinBandOf(heldBuy, keeper.buy) && withinBandOf(heldSell, keeper.sell),
        aboveUsd: Math.max(aboveBy(heldBuy, target.buy), aboveBy(heldSell, target.sell)),
      };
    };
    const samples: ReturnType<typeof measure>[] = [];
    const sample = (...args: Parameters<typeof measure>) => {
      const entry = measure(...args);
      if (samples.length === 0) csvOut.write(`${Object.keys(entry)}\n`);
      samples.push(entry);
      csvOut.write(`${Object.values(entry).map((value) => value ?? '')}\n`);
    };
    // From the first cycle that read the schedule on (one that began before it was written has nothing to hold).
    let scheduled = false;
    onCycle = (serverMs, targetUsd) => {
      scheduled ||= targetUsd > 0;
      if (scheduled) sample('cycle', serverMs);
    };

    // Kill moments: uniform over the run's expected real length (a share of it kept clear at each end).
    const random = randomStream(options.seed ^ 0x5eed);
    const expectedRealMs = (endMs - startMs) / options.clockSpeed;
    const killAtRealMs = Array.from({ length: options.kills }, () => (0.1 + 0.8 * random()) * expectedRealMs).sort(
      (a, b) => a - b,
    );
    let killed = 0;
    for (const atMs of killAtRealMs)
      timers.push(
        setTimeout(() => {
          if (keepers.current?.exitCode !== null) return;
          keepers.current.kill('SIGKILL');
          killed += 1;
          console.log(`kill -9 of keeper ${keepers.number} at server ${iso(serverNow())}`);
          // Started again after a pause of up to a second, as a supervisor would.
          const restart = () => serverNow() < lastEndMs && startKeeper();
          timers.push(setTimeout(restart, Math.round(random() * 1000)));
        }, atMs),
      );

    let nextProgressMs = startMs;
    // A keeper's start-ups can take a good part of a short run on a loaded machine: the run then goes
    // on past its end (the book flat by then, and checked so) until the keeper has cycled four
    // times, for at most as long again.
    const cycled = () => samples.filter((s) => s.kind === 'cycle').length;
    while (serverNow() < endMs || (cycled() < 4 && serverNow() < lastEndMs)) {
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
      sample('tick');
      const now = serverNow();
      if (now >= nextProgressMs) {
        const last = samples.at(-1)!;
        console.log(
          `day ${((now - startMs) / DAY_MS).toFixed(1)}: held buy ${last.heldBuy} sell ${last.heldSell}, target buy ${last.targetBuy} sell ${last.targetSell}, ${cycled()} cycles`,
        );
        nextProgressMs = now + Math.max(DAY_MS, (options.days * DAY_MS) / 10);
      }
    }
    timers.forEach(clearTimeout);
    await stopKeeper(keepers.current!);
    sample('tick');
    await csvOut.end();

    const report = await reconcileReport(sim, file, exposures);
    const cycles = samples.filter((s) => s.kind === 'cycle');
    const inBand = cycles.filter((s) => s.inBand).length;
    const afterLastDue = samples.filter((s) => s.serverMs >= lastDueMs);
    const notFlat = afterLastDue.filter((s) => s.heldBuy !== 0 || s.heldSell !== 0);
    const maxAboveUsd = Math.max(0, ...samples.map((s) => s.aboveUsd));
    const withinBandPct = cycles.length === 0 ? 0 : Math.round((inBand / cycles.length) * 10_000) / 100;
    const problems: string[] = [];
    if (cycles.length === 0) problems.push('no keeper cycle was sampled');
    if (withinBandPct < 99)
      problems.push(
        `band: ${withinBandPct}% of ${cycles.length} cycle samples within the band (at least 99% expected)`,
      );
    for (const s of samples.filter((x) => x.aboveUsd > 0).slice(0, 5))
      problems.push(
        `above: at ${iso(s.serverMs)} (${s.kind}, keeper ${s.keeper}) held buy ${s.heldBuy} sell ${s.heldSell} against exposure × ratio buy ${s.targetBuy} sell ${s.targetSell}: ${s.aboveUsd} USD above the band`,
      );
    if (afterLastDue.length === 0) problems.push('flat: no sample after the last due date');
    for (const s of notFlat.slice(0, 5))
      problems.push(`flat: at ${iso(s.serverMs)}, after the last due date, held buy ${s.heldBuy} sell ${s.heldSell}`);
    problems.push(...report.mismatches.map((line) => `report: ${line}`));
    if (killed < options.kills) problems.push(`kills: ${killed} of ${options.kills} happened (the run ended first)`);
    return {
      samples,
      cycleSamples: cycles.length,
      tickSamples: samples.length - cycles.length,
      withinBandPct,
      maxAboveUsd,
      flatSamplesAfterLastDue: afterLastDue.length - notFlat.length,
      notFlatAfterLastDue: notFlat.length,
      kills: killed,
      keepers: keepers.number,
      events: keepers.events,
      errorCodes,
      wallMs: Date.now() - wallStart,
      serverDays: (serverNow() - startMs) / DAY_MS,
      startMs,
      lastDueMs,
      report,
      problems,
    };
  } finally {
    timers.forEach(clearTimeout);
    await keepers.close();
    await sim.close();
  }
}

/**
 * `hedge exposures FILE --report --json` against the server's own records: the cost to date per
 * market (closed hedges, carry, fees) must equal the account's history summed in whole cents, and
 * each week's hedged_usd must equal what the server's hedges (history's closed ones, the filled ones
 * still open) held at that week's `at`, in the exposures' netted direction.
 */
async function reconcileReport(sim: Simulator, file: string, exposures: readonly Exposure[]) {
  const result = await sim.hedge(['exposures', file, '--report', '--json'], { timeoutMs: 60_000 });
  const mismatches: string[] = [];
  if (result.code !== 0)
    return {
      coverageRows: 0,
      carryUsdc: 0,
      feesUsdc: 0,
      closedHedges: 0,
      weeks: [],
      mismatches: [`exit ${result.code}: ${result.stderr.trim()}`],
    };
  const report = JSON.parse(result.stdout);
  const accounts = Object.values(sim.sandbox.engine.state.accounts);
  const history = accounts.flatMap((account) => account.history).filter((record) => record.market === MARKET);
  // The server's records count what the account paid as positive; the report, from the account's side, as negative.
  const paidCents = (field: 'carry_usdc' | 'fees_usdc') =>
    -history.reduce((total, record) => total + Math.round(record[field] * 100), 0);
  const carryCents = paidCents('carry_usdc');
  const feeCents = paidCents('fees_usdc');
  const cost = report.cost.find((row: any) => row.market === MARKET);
  if (!cost) mismatches.push(`no cost row for ${MARKET}`);
  else {
    const sums = {
      closed_hedges: history.length,
      carry_pnl_usdc: carryCents / 100,
      fees_pnl_usdc: feeCents / 100,
      cost_usdc: (carryCents + feeCents) / 100,
    };
    for (const [key, sum] of Object.entries(sums))
      if (Math.round(cost[key] * 100) !== Math.round(sum * 100))
        mismatches.push(`${key} ${cost[key]}, history ${key === 'closed_hedges' ? 'holds' : 'sums to'} ${sum}`);
  }
  // What the server's hedges held at an instant: history's closed ones between opened_at and closed_at, the filled ones from opened.
  const open = accounts
    .flatMap((account) => Object.values(account.hedges))
    .filter((hedge) => hedge.market === MARKET && hedge.status === 'filled');
  const signedHeldAt = (ms: number) =>
    history
      .filter((record) => Date.parse(record.opened_at) <= ms && Date.parse(record.closed_at) > ms)
      .reduce((total, record) => total + (record.side === 'buy' ? 1 : -1) * record.notional_usd, 0) +
    open
      .filter((hedge) => hedge.openedAtMs <= ms)
      .reduce((total, hedge) => total + (hedge.side === 'buy' ? 1 : -1) * hedge.notionalUsd, 0);
  const price = report.prices[MARKET];
  const coverage: any[] = report.coverage.filter((row: any) => row.market === MARKET);
  // The weeks run to the server's now (its clock is weeks ahead of ours here), not to ours.
  const serverNowMs = sim.sandbox.clock.now();
  const lastAt = Date.parse(coverage.at(-1)?.at);
  if (!(lastAt >= serverNowMs - DAY_MS))
    mismatches.push(
      `the coverage ends at ${Number.isNaN(lastAt) ? 'nothing' : iso(lastAt)}; the server's time is ${iso(serverNowMs)}`,
    );
  for (const week of coverage) {
    const at = Date.parse(week.at);
    const net = exposures
      .filter((exposure) => exposure.market === MARKET && exposure.dueMs > at)
      .reduce((total, exposure) => {
        const side = coverSide(exposure, DEFAULT_POLICY.functional);
        return total + (side === undefined ? 0 : (side === 'buy' ? 1 : -1) * amountUsd(exposure, price));
      }, 0);
    const expected = round2(Math.max(0, signedHeldAt(at) * Math.sign(net)));
    if (Math.abs(expected - week.hedged_usd) > 0.001)
      mismatches.push(
        `week ${week.week}: hedged_usd ${week.hedged_usd}, the server's hedges held ${expected} at ${week.at}`,
      );
  }
  return {
    coverageRows: report.coverage.length,
    carryUsdc: carryCents / 100,
    feesUsdc: feeCents / 100,
    closedHedges: history.length,
    // Each week's hedged_usd, as the report has it.
    weeks: coverage.map((week) => ({ week: week.week, at: week.at, hedgedUsd: week.hedged_usd })),
    mismatches,
  };
}

/** The figures of a run (what it saw, its report's reconciliation, its `problems`: the checks failed), one per line, as the script prints them. */
export function describeSoak(result: Awaited<ReturnType<typeof runExposuresSoak>>, options: SoakOptions) {
  const day = (ms: number) => ((ms - result.startMs) / DAY_MS).toFixed(2);
  return [
    `soak: ${options.days} server days (ran ${result.serverDays.toFixed(2)}), seed ${options.seed}, clock speed ${options.clockSpeed}x, keeper --interval ${options.intervalS}`,
    `samples: ${result.samples.length} (${result.cycleSamples} after keeper cycles, ${result.tickSamples} between)`,
    `within band (cycle samples, against the keeper's target): ${result.withinBandPct}%`,
    `max above exposure × ratio + band (all samples): ${result.maxAboveUsd} USD`,
    `after the last due date (day ${day(result.lastDueMs)}): ${result.flatSamplesAfterLastDue} samples flat, ${result.notFlatAfterLastDue} not`,
    `kills: ${result.kills} kill -9, ${result.keepers} keeper processes; events: ${JSON.stringify(result.events)}`,
    `keeper errors: ${result.errorCodes.length === 0 ? 'none' : result.errorCodes.join('; ')}`,
    `report: cost ${result.report.closedHedges} closed hedges, carry ${result.report.carryUsdc} USDC, fees ${result.report.feesUsdc} USDC; ${result.report.coverageRows} coverage weeks; ${result.report.mismatches.length === 0 ? 'reconciles to the cent with history' : `${result.report.mismatches.length} mismatches`}`,
    `wall time: ${(result.wallMs / 1000).toFixed(1)} s`,
    "coverage per week (the report's hedged_usd):",
    ...result.report.weeks.map((week) => `  ${week.week}  at ${week.at}  hedged ${week.hedgedUsd.toFixed(2)}`),
    result.problems.length === 0 ? 'all checks passed' : `PROBLEMS:\n  ${result.problems.join('\n  ')}`,
  ];
}

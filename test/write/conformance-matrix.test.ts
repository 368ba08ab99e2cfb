// The write path's conformance matrix: every entry point that moves money (rows) against every rule
// of the write path (columns), each cell a small test generated from the two tables below. A new
// entry point is a row; a new rule of the write path is a column. What is asserted is the
// simulator's own state and request log (and the journal as `hedge journal` lists it), never the
// command's word alone. Every cell starts a simulator of its own, so the cells run side by side, hedge on its
// stepped clock (waits and backoffs move it instead of passing). A cell that gives --timeout has that clock untimed:
// the bound counts the run's pauses alone, never the real time a loaded machine spends on its reads and sends.
import { keyFingerprint, openJournal } from '../../src/platform/journal/index.js';
import { exits, journalEntries } from '../support/cli-runs.js';
import type { Person } from '../support/hedge-in-process.js';
import { tempDirsInMemory, type RunResult } from '../support/hedge-cli.js';
import { HOUR, writeTarget } from '../support/keeper.js';
import { withMcpServer, type McpAnswer } from '../support/mcp.js';
import { BUY, journal } from '../agent/answers.js';
import { until } from '../support/polling.js';
import { startLiveKeyProxy } from '../support/servers/field-proxy.js';
import {
  colleagueCloses,
  closedAfter,
  colleagueOpens,
  MARKET,
  withSimulator,
  type Simulator,
  type SimulatorOptions,
} from '../support/simulator.js';

type Run = Pick<RunResult, 'code' | 'stdout' | 'stderr'>;

interface Row {
  /** The POST the action sends first: the one a rule holds, faults or counts. */
  path: string;
  /** The side holds a filled buy of 1,000 (7 days) before the action. */
  seeded?: boolean;
  /** Runs the entry point once the side is set up; `flags` are the front's (--timeout, --request-timeout). */
  run(simulator: Simulator, flags: string[]): Promise<Run>;
  /** The action's own effect, once, as the server holds it after the action. */
  effect(simulator: Simulator): void;
  /** Sets up what the entry point acts on beyond the seeded side (a journal entry left unresolved). */
  prepare?(simulator: Simulator): Promise<void>;
  /**
   * Runs the entry point so that it asks before it sends (a person at a terminal on a LIVE key, the wizard, an
   * agent's preview token on a LIVE key); `meanwhile` runs between what was shown and the yes.
   */
  confirm?(simulator: Simulator, meanwhile: () => Promise<void>): Promise<Run>;
  /** The rules that do not apply to this row, each with why. */
  omitted?: Partial<Record<RuleName, string>>;
}

tempDirsInMemory();

const notionals = (simulator: Simulator) => simulator.active('buy').map((hedge) => hedge.notionalUsd);

const OPEN_BUY = `open ${MARKET} buy`;
const answered = (answer: McpAnswer) => {
  const text = answer.content.map((part) => part.text).join('\n');
  const code = answer.isError ? JSON.parse(answer.content[0].text).exit_code : 0;
  return { code, stdout: text, stderr: text };
};

/** One call of an MCP write tool on a server of its own (`hedge mcp` with the front's flags): its answer as a run. */
const tool = (name: string, args: Record<string, unknown>) => (simulator: Simulator, flags: string[]) =>
  withMcpServer(simulator, { args: flags }, async (served) => answered(await served.call(name, args)));

/** The simulator's account behind a LIVE key (a proxy that presents the simulator's own key upstream). */
const live = <T>(simulator: Simulator, body: (env: Record<string, string>) => Promise<T>) =>
  closedAfter(startLiveKeyProxy(simulator.sandbox), (proxy) => body(proxy.env));

/** The tool on a LIVE key (`--allow-live`): previewed, `meanwhile`, then called again with the preview's token. */
const toolConfirmed =
  (name: string, args: Record<string, unknown>) => (simulator: Simulator, meanwhile: () => Promise<void>) =>
    live(simulator, (env) =>
      withMcpServer(simulator, { args: ['--allow-live'], env }, async (served) => {
        const shown = JSON.parse((await served.call(name, args)).content[0].text);
        await meanwhile();
        return answered(await served.call(name, { ...args, confirmation_token: shown.confirmation_token }));
      }),
    );

/** A person at the terminal answering each question in turn ([what is shown, what they type]). */
type Answers = Array<[string, string]>;
const CONFIRMATION = '(y/N)';

/** Answers each question shown in turn (until the run ends), then yes to the confirmation; with `meanwhile`, run while
 *  the confirmation is open, and no when it is asked again. */
const answering = (answers: Answers, meanwhile?: () => Promise<void>) => async (person: Person) => {
  for (const [shown, typed] of [...answers, [CONFIRMATION, 'y\r'] as const]) {
    if (!(await person.asked(shown))) return;
    if (shown === CONFIRMATION) await meanwhile?.();
    person.type(typed);
  }
  if (meanwhile && (await person.asked(CONFIRMATION))) person.type('n\r');
};

/** On a terminal stdout and stderr are one text: both fields of the run hold it. */
const onScreen = (run: Run) => ({ ...run, stderr: run.stdout });

/** The command at a terminal on a LIVE key: confirmed as `answering` does. */
const asked = (line: string) => (simulator: Simulator, meanwhile: () => Promise<void>) =>
  live(simulator, async (env) => onScreen(await simulator.hedge(line, { env, person: answering([], meanwhile) })));

/** The wizard (`hedge open` at a terminal without a notional): the person answers `answers` and confirms. */
const wizard = (answers: Answers): Pick<Row, 'run' | 'confirm'> => ({
  run: async (simulator, flags) =>
    onScreen(await simulator.hedge([...OPEN_BUY.split(' '), ...flags], { person: answering(answers) })),
  confirm: async (simulator, meanwhile) =>
    onScreen(await simulator.hedge(OPEN_BUY, { person: answering(answers, meanwhile) })),
});

const TARGET = `${MARKET},buy,1000,3,,`;
// Apply's confirmation is met on a side that holds 1,000 with a target of 1,500: its add is asked about, and the hedge the
// side holds is what changes meanwhile.
const ADD_TO_HELD = `${MARKET},buy,1500,7,,`;
const heldSide = (simulator: Simulator) => (simulator.seedOpen('buy', 1000), simulator);

// The action each row takes, on a side seeded with a filled buy of 1,000 where it changes one: `line` run with --json
// (and `yes` after it), or asked at a LIVE terminal; its effect the notionals of the buy side's hedges.
const command = (path: string, seeded: boolean, line: string, effect: number[], yes = ''): Row => ({
  path,
  seeded,
  run: (simulator, flags) => simulator.hedge([...(line + yes).split(' '), '--json', ...flags]),
  confirm: asked(line),
  effect: (s) => expect(notionals(s)).toEqual(effect),
});
// The rules an open omits are its wizard's and its tool's too.
const open: Row = {
  ...command('/hedges', false, `${OPEN_BUY} 1000 --tenor 3`, [1000]),
  omitted: { 'lagging reads': 'an open changes no side it reads: the replica lag is the cells of the writes after it' },
};
const add = command('/hedges/add', true, `add ${MARKET} buy 500`, [1500]);
const reduce = command('/hedges/reduce', true, `reduce ${MARKET} buy 300`, [700]);
const close: Row = {
  ...command('/hedges/close', true, `close ${MARKET} buy`, [], ' --yes'),
  effect: (s) => expect([notionals(s), s.historyCount()]).toEqual([[], 1]),
};
// A roll's first leg is its close; the open that follows carries the side on at the new tenor.
const roll: Row = {
  ...command('/hedges/close', true, `roll ${MARKET} buy --tenor 3`, [], ' --yes'),
  effect: (s) => {
    expect(s.active('buy').map((hedge) => [hedge.notionalUsd, hedge.tenorDays])).toEqual([[1000, 3]]);
    expect([s.actions('/hedges/close').length, s.historyCount()]).toEqual([1, 1]);
  },
};
const apply: Row = {
  path: '/hedges',
  run: (simulator, flags) => simulator.hedge(['apply', writeTarget(simulator, [TARGET]), '--yes', '--json', ...flags]),
  confirm: (simulator, meanwhile) =>
    asked(`apply ${writeTarget(simulator, [ADD_TO_HELD])}`)(heldSide(simulator), meanwhile),
  effect: open.effect,
};

/** An open whose answer never came (exit 5, outcome unknown): the journal entry `resume` finishes. Once its first
 * attempt is held, each retry is refused at once (503, Retry-After: 0), so that the retries end without backing off. */
async function unresolvedOpen(simulator: Simulator) {
  const match = { method: 'POST', path: '/hedges' };
  simulator.sandbox.setFaults({ stall: 'headers', match });
  const running = simulator.hedge(`${OPEN_BUY} 1000 --tenor 3 --request-timeout 0.5`);
  await until(() => keysOn(simulator, '/hedges').length > 0, 'the open held', { process: running });
  simulator.sandbox.setFaults({ stall: null, next503RetryAfter: { count: 9, retryAfter: '0' } });
  exits(await running, 5);
  simulator.sandbox.setFaults({ next503RetryAfter: null, match: null });
}

const resume: Row = {
  path: '/hedges',
  prepare: unresolvedOpen,
  run: async (simulator, flags) => {
    const [entry] = await journalEntries(simulator, '--pending');
    return simulator.hedge(['resume', entry.id, '--json', ...flags]);
  },
  effect: open.effect,
  omitted: {
    'lagging reads': "resume of a hidden hedge is test/write/trailing-views.test.ts's resumable open",
    'confirmation bound':
      "resuming an open sends it as the journal holds it, under its key: nothing new is shown or asked (a roll's last leg is: test/write/pre-trade-safety.test.ts)",
  },
};

/** An MCP write tool on the buy side: called on a test key, confirmed with a token on a LIVE key. */
const mcp = (name: string, args: object) => {
  const call = { ...BUY, ...args };
  return { run: tool(name, call), confirm: toolConfirmed(name, call) };
};

const ROWS: Record<string, Row> = {
  open,
  add,
  reduce,
  close,
  roll,
  apply,
  resume,
  // One cycle of the keeper on a target row of 1,000 (3 days): its step is an open.
  keeper: {
    path: '/hedges',
    run: (simulator, flags) => simulator.hedge(['keep', writeTarget(simulator, [TARGET]), '--once', ...flags]),
    effect: open.effect,
    omitted: {
      'confirmation bound':
        "the keeper is confirmed once, at its start, for the target file: each step is planned again on a fresh read under the side's lock",
    },
  },
  // The wizard: `hedge open` at a terminal, a person answering what it asks.
  'wizard open': {
    ...open,
    ...wizard([
      ['Notional in USD', '1000\r'],
      ['? Tenor', '\x1b[B\r'],
      ['Client reference', '\r'],
    ]),
  },
  // "Add to it" on a side that holds a hedge.
  'wizard add': {
    ...add,
    ...wizard([
      ['Cancel (nothing is sent)', '\r'],
      ['Notional in USD', '500\r'],
    ]),
    omitted: {
      'lagging reads':
        "the person answers the side as the wizard shows it (flat when reads lag): the add sent is add's action, add's cell",
    },
  },
  // The front's flags are the server's (`hedge mcp --timeout 3`): each tool call runs under them.
  'mcp open': { ...open, ...mcp('open', { notional: 1000, tenor: 3 }) },
  'mcp add': { ...add, ...mcp('add', { notional: 500 }) },
  'mcp reduce': { ...reduce, ...mcp('reduce', { notional: 300 }) },
  'mcp close': { ...close, ...mcp('close', {}) },
  'mcp roll': { ...roll, ...mcp('roll', { tenor: 3 }) },
  'mcp resume': {
    ...resume,
    run: async (simulator, flags) => {
      const [entry] = await journalEntries(simulator, '--pending');
      return tool('resume', { id: entry.id })(simulator, flags);
    },
  },
  'mcp apply': {
    ...apply,
    run: tool('apply', { rows: [{ ...BUY, notional_usd: 1000, tenor_days: 3 }] }),
    confirm: (simulator, meanwhile) =>
      toolConfirmed('apply', { rows: [{ ...BUY, notional_usd: 1500, tenor_days: 7 }] })(heldSide(simulator), meanwhile),
  },
};

/** A simulator for a cell (its clock `ahead` of this machine's), its side seeded when the row acts on one, and the row's
 * own set-up done. */
async function cell(row: Row, options: SimulatorOptions, body: (simulator: Simulator) => Promise<void>, ahead = 0) {
  await withSimulator({ ...options, stepped: true }, async (simulator) => {
    simulator.advance(ahead);
    if (row.seeded) simulator.seedOpen('buy', 1000);
    await row.prepare?.(simulator);
    await body(simulator);
  });
}

/** The keys the server received on `path`, one per attempt. */
const keysOn = (simulator: Simulator, path: string) =>
  simulator.requests('POST', path).map((entry) => entry.idempotencyKey);

/**
 * Exit 0, the action's effect once, and every attempt of its send under one key the server acted on once: a retry under
 * that key (an answer slower than --request-timeout) is replayed, not acted on again.
 */
function actedOnce(simulator: Simulator, row: Row, run: Run) {
  exits(run, 0);
  row.effect(simulator);
  const keys = keysOn(simulator, row.path);
  expect(new Set(keys).size, JSON.stringify(keys)).toBe(1);
  expect(simulator.actions(row.path).map((entry) => entry.idempotencyKey)).toEqual([keys[0]]);
}

const RULES = {
  // The write held unanswered by the server: the journal already holds its key; then answered later than the client
  // waits (its key in flight meanwhile), so that a retry under the key meets its replay: it ends, acted on once.
  'journal before send': (row: Row) =>
    cell(row, {}, async (simulator) => {
      simulator.sandbox.setFaults({ stall: 'headers', match: { method: 'POST', path: row.path } });
      const running = row.run(simulator, ['--request-timeout', '1']);
      await until(
        () => simulator.requests('POST', row.path).some((entry) => entry.status === 'stalled'),
        'the write held',
        {
          process: running,
        },
      );
      const key = keysOn(simulator, row.path)[0];
      expect((await journalEntries(simulator)).map((entry) => entry.idempotency_key)).toContain(key);
      simulator.sandbox.setFaults({ stall: null, nextLatency: { count: 1, ms: 1500 } });
      actedOnce(simulator, row, await running);
    }),

  // Two 5xx, then a connection dropped after the server committed: one key on every attempt, one effect.
  'one key on every retry': (row: Row) =>
    cell(row, {}, async (simulator) => {
      simulator.sandbox.setFaults({ next5xx: 2, nextDropAfterCommit: 1, match: { method: 'POST', path: row.path } });
      const run = await row.run(simulator, []);
      expect(
        simulator
          .requests('POST', row.path)
          .map((entry) => entry.status)
          .slice(-4),
      ).toEqual([expect.any(Number), expect.any(Number), 'dropped', 200]);
      actedOnce(simulator, row, run);
    }),

  // Fills and landings an hour away (hedge's own pauses never reach them): the command ends by itself at its bound on
  // the stepped clock, exit 7 or 5, with the key (the keeper's events are on stdout). A write flow without its prove
  // stage says done at once: every cell of this column fails.
  'bounded wait': (row: Row) =>
    cell(row, { fillDelayMs: HOUR, untimed: true }, async (simulator) => {
      const run = await row.run(simulator, ['--timeout', '6']);
      expect([5, 7], run.stderr + run.stdout).toContain(run.code);
      const [key] = keysOn(simulator, row.path);
      expect(run.stderr + run.stdout).toContain(key);
    }),

  // The server 45 s ahead and no Date header; a 7-day hedge is 140 s (a day of 20 s): in step, acted on once (a plain
  // run's exit 0 and effect).
  'clock ahead': (row: Row) =>
    cell(
      row,
      { noDateHeader: true, dayMs: 20_000, untimed: true },
      async (simulator) => actedOnce(simulator, row, await row.run(simulator, ['--timeout', '8'])),
      45_000,
    ),

  // Right after an open --no-wait on a server whose reads trail by an hour (never caught up here): acted on once,
  // or "cannot tell" (exit 12) with nothing sent — never a refusal that claims the side is not open.
  'lagging reads': (row: Row) =>
    withSimulator({ recordLagMs: HOUR, viewLagMs: HOUR, stepped: true, untimed: true }, async (simulator) => {
      exits(await simulator.hedge(`${OPEN_BUY} 1000 --tenor ${row.seeded ? 7 : 3} --no-wait`), 0);
      const opens = simulator.requests('POST', '/hedges').length;
      const run = await row.run(simulator, ['--timeout', '4']);
      expect([0, 12], run.stderr + run.stdout).toContain(run.code);
      expect(run.stderr).not.toContain('no_open_hedge');
      if (!row.seeded) {
        // At target already: the open --no-wait was the only one.
        expect(simulator.requests('POST', '/hedges')).toHaveLength(opens);
        expect(notionals(simulator)).toEqual([1000]);
      } else if (run.code === 0) actedOnce(simulator, row, run);
      else {
        // "Cannot tell", naming the hedge the open was answered with: nothing sent, nothing journaled but the open.
        expect([keysOn(simulator, row.path), notionals(simulator)]).toEqual([[], [1000]]);
        expect(run.stderr).toMatch(new RegExp(`${simulator.hedges()[0].id}[^]*Nothing was sent`));
        expect((await journalEntries(simulator)).map((entry) => entry.command)).toEqual(['open']);
      }
    }),

  // The side changed between what was shown and the yes (its hedge swapped for another of the same notional; a flat
  // side opened meanwhile): nothing is sent. The person is told what the side holds now against what was shown (by its
  // hedges, the notional being the same) and asked again (and says no: exit 8); the agent's token is refused
  // (preview_changed, exit 3).
  'confirmation bound': (row: Row) =>
    cell(row, {}, async (simulator) => {
      let trades = 0;
      const ids = () => simulator.active('buy').map((hedge) => hedge.id);
      let shown: string[] = [];
      const run = await row.confirm!(simulator, async () => {
        shown = ids();
        if (shown.length) await colleagueCloses(simulator, 'buy');
        await colleagueOpens(simulator, 'buy', 1000, 7);
        trades = simulator.trades().length;
      });
      const said =
        run.code === 3
          ? 'preview_changed'
          : row.seeded
            ? `moved while you were asked: it holds 1,000.00 USD in ${ids()} now, not the 1,000.00 USD in ${shown} shown`
            : 'moved while you were asked';
      expect([run.code === 3 || run.code === 8, run.stdout.replace(/\s+/g, ' ')], run.stdout).toEqual([
        true,
        expect.stringContaining(said),
      ]);
      expect([simulator.trades().length, notionals(simulator)]).toEqual([trades, [1000]]);
      expect(await journal(simulator)).toEqual([]);
    }),

  // Another hedge process holds the side's lock all along (a journal of the test's own takes it, as hedge does): the
  // run waits its bound (--timeout: the lock's looks, never the reads before them), sends nothing and says so (exit 11,
  // held). Every entry point takes it in the write flow's lock stage: without it there, every cell of this column fails.
  "the side's lock": (row: Row) =>
    cell(row, { untimed: true }, async (simulator) => {
      const trades = simulator.trades().length;
      const scope = `test|${keyFingerprint(simulator.apiKey)}|side|${MARKET}|buy`;
      const other = await openJournal({ dir: simulator.configDir }).lock(scope, { waitMs: 0 });
      if (!other.held) throw new Error('the side was held already');
      const run = await row.run(simulator, ['--timeout', '3']).finally(() => other.hold.release());
      expect([run.code, run.stderr + run.stdout], run.stderr).toEqual([
        11,
        expect.stringContaining('still held by another hedge process'),
      ]);
      expect(simulator.trades()).toHaveLength(trades);
    }),
};

type RuleName = keyof typeof RULES;

// Every cell side by side (vitest runs sibling suites one after another): one simulator each.
describe.concurrent('the write path: every entry point against every rule', () => {
  for (const [name, row] of Object.entries(ROWS))
    for (const rule of Object.keys(RULES) as RuleName[])
      if (!row.omitted?.[rule]) it(`${name}: ${rule}`, () => RULES[rule](row));
});

// The whole lifecycle through the real binary against every wire dialect of the sandbox (servers
// that keep the spec's rules but answer its "not shown" questions differently, DIALECTS.md), in
// the table, plain (TSV) and --json output, with NO wire setting given: markets, price, quote,
// open (with --ref), add, reduce, full reduce, open again, close, then the lists, the hedge,
// history, positions, account and price — each dialect on a market it lists as open (gamma lists
// USDTNGN disabled: its lifecycle runs on USDTKES). The client learns what it must (the add/reduce
// amount's name from the first refusal, beta's page-size name from its refusal) and reads the rest
// tolerantly (decimal strings, a `settling` status, cursor pages, another prices shape).
// Assertions are on the server's own state and request log; --json --raw must be the server's data
// as it came (compared with a direct GET, the fields that move with the clock masked). hedge's own
// one shape of --json, the same whatever the dialect, is checked in json-keeps-everything.test.ts.
import type { ChildProcess } from 'node:child_process';
import { WIRE_SETTING_SOURCES } from '../../src/platform/api/wire/unspecified.js';
import { HOSTILE_FIELD_NAME, HOSTILE_FIELD_VALUE } from '../../src/sandbox/http/server.js';
import { SANDBOX_DIALECTS } from '../../src/sandbox/dialect-names.js';
import { wireDialect } from '../../src/sandbox/dialects.js';
import { runHedge, tempDir } from '../support/hedge-cli.js';
import { until } from '../support/polling.js';
import { apiData, withSimulator } from '../support/simulator.js';
import { okJson } from '../support/cli-runs.js';

/** Each output mode's arguments and environment (table mode without a pseudo-terminal: HEDGE_FORCE_TTY). */
const MODE = {
  table: [['--format', 'table'], { HEDGE_FORCE_TTY: '1', COLUMNS: '400' }],
  plain: [[], {}],
  json: [['--json', '--raw'], {}],
} as const;
type Mode = keyof typeof MODE;

/** The value with moving fields replaced by their type, as JSON text: key order counts too. */
function masked(value: unknown, moving: ReadonlySet<string>) {
  const mask = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(mask);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(
        Object.entries(item).map(([key, field]) => [key, moving.has(key) ? `<${typeof field}>` : mask(field)]),
      );
    }
    return item;
  };
  return JSON.stringify(mask(value), null, 1);
}

// One simulator per dialect: the writes run once, each in one output mode, and every read in all
// three. On the stepped clock the waits for fills end at once, so a dialect's runs are work on this
// process's one thread: the dialects go one after another, each within its own bound (side by side,
// each would take as long as all of them).
describe('the lifecycle against every wire dialect, with no wire setting given', () => {
  it.each(SANDBOX_DIALECTS)('%s: table, plain and --json output', async (dialect) => {
    await withSimulator({ dialect, fillDelayMs: 20, stepped: true }, async (simulator) => {
      const wire = wireDialect(dialect);
      // The market it trades: the first one it lists as open.
      const MARKET = wire.markets.find((listed) => listed.status === 'open')!.market;
      const position = wire.positionFields;
      // Fields whose values move with the sandbox clock (price path, carry): compared by type only.
      const moving = new Set(
        [
          position.mark_price,
          position.gross_pnl_usd,
          position.accrued_carry_usdc,
          position.net_pnl_usd,
          position.net_margin_usd,
          position.close_fee_usdc,
          wire.accountFields.unrealized_pnl_usd,
          // GET /prices in every shape: reference price/timestamp, alpha mid/ts, beta rate, gamma's
          // {rates: [{pair, bid, ask, as_of}]}.
          ...'price timestamp mid ts rate bid ask as_of'.split(' '),
        ].filter((name) => typeof name === 'string'),
      );
      /** One run in `mode` (no HEDGE_WIRE_* at all: what the client sends where the spec is silent, it guesses or learns). */
      const hedge = async (mode: Mode, ...args: string[]) => {
        const result = await simulator.hedge([...args, ...MODE[mode][0]], { env: MODE[mode][1] });
        expect(result.code, `${dialect} dialect, ${mode} output: hedge ${args.join(' ')}\n${result.stderr}`).toBe(0);
        return result;
      };
      /** A read in every output mode, one after another on the same book: the runs' stdout by mode. */
      const read = async (...args: string[]) => {
        const out = {} as Record<Mode, string>;
        for (const mode of Object.keys(MODE) as Mode[]) out[mode] = (await hedge(mode, ...args)).stdout;
        return out;
      };
      /** The server's own data for the same read (a plain GET, no CLI; any error answer throws). */
      const server = (path: string) => apiData(simulator, 'GET', path);
      /** What --json --raw printed is the server's own data for the same read (moving fields masked). */
      const sameAsServer = async (out: Record<Mode, string>, path: string) =>
        expect(masked(JSON.parse(out.json), moving)).toBe(masked(await server(path), moving));
      /** The table and the TSV both show `text`. */
      const shown = (out: Record<Mode, string>, text: string) => {
        expect(out.table).toContain(text);
        expect(out.plain).toContain(text);
      };
      const hedgeState = (id: string) => simulator.hedges().find((entry) => entry.id === id)!;
      const account = () => Object.values(simulator.sandbox.engine.state.accounts)[0];
      const opened = async (mode: Mode, args: string[]) => {
        const before = new Set(simulator.hedges().map((entry) => entry.id));
        const opens = simulator.requests('POST', '/hedges').length;
        const result = await hedge(mode, ...args);
        // One hedge per open: one POST, one new hedge on the server.
        expect(simulator.requests('POST', '/hedges')).toHaveLength(opens + 1);
        const created = simulator.hedges().filter((entry) => !before.has(entry.id));
        expect(created, dialect).toHaveLength(1);
        if (mode === 'json') expect(JSON.parse(result.stdout)).toMatchObject({ id: created[0].id });
        return created[0].id;
      };

      // markets: every listed market, whatever it is; quote on the open one
      const markets = await read('markets');
      expect(JSON.parse(markets.json).map((entry: any) => entry.market)).toEqual(
        wire.markets.map((listed) => listed.market),
      );
      shown(markets, MARKET);
      const quote = await read('quote', MARKET, 'buy', '10000', '--tenor', '3');
      expect(JSON.parse(quote.json)).toMatchObject({
        market: MARKET,
        side: 'buy',
        notional_usd: 10_000,
        tenor_days: 3,
      });

      // The writes each in one output mode, every mode taking its turn.
      // open
      const typed = `lifecycle-${dialect}`;
      const buyId = await opened('json', ['open', MARKET, 'buy', '10000', '--tenor', '3', '--ref', typed, '--yes']);
      // The reference as the server keeps it (delta: in upper case).
      const reference = wire.references === 'upper-case' ? typed.toUpperCase() : typed;
      expect(hedgeState(buyId)).toMatchObject({
        status: 'filled',
        side: 'buy',
        notionalUsd: 10_000,
        clientReference: reference,
      });

      /** The change landed: the hedge filled at `notionalUsd`, no change pending. */
      const changed = (notionalUsd: number) => {
        expect(hedgeState(buyId)).toMatchObject({ status: 'filled', notionalUsd });
        expect(hedgeState(buyId).pendingChange).toBeUndefined();
      };
      // add: the body carries the notional under the dialect's name, and nothing under another (a
      // dialect with another name refuses hedge's guess once, the first time: then hedge knows it)
      await hedge('table', 'add', MARKET, 'buy', '5000', '--yes', '--again');
      const adds = simulator.requests('POST', '/hedges/add');
      expect([adds.at(-1)!.body, adds.at(-1)!.status, adds.length], dialect).toEqual([
        { market: MARKET, side: 'buy', [wire.changeNotionalField]: 5000 },
        200,
        wire.changeNotionalField !== 'notional_usd' ? 2 : 1,
      ]);
      changed(15_000);

      // reduce: the learned name from the start, one request
      await hedge('plain', 'reduce', MARKET, 'buy', '3000', '--yes', '--again');
      expect(simulator.requests('POST', '/hedges/reduce').map((entry) => entry.body)).toEqual([
        { market: MARKET, side: 'buy', [wire.changeNotionalField]: 3000 },
      ]);
      changed(12_000);

      // positions and account with a position open
      const positions = await read('positions');
      await sameAsServer(positions, '/positions');
      // Every dialect's side and notional, whatever the server names them (beta sends no side at all).
      // The deal reference is joined from the hedges in every dialect (cut with … when the terminal is narrow).
      expect(positions.table).toMatch(new RegExp(`${MARKET}\\s+buy\\s+lifecycle-\\S*\\s+12,000\\.00`, 'i'));
      expect(positions.plain).toContain('12000');
      // A number the server sends as a decimal string (gamma) is shown as a number: the TSV's notional, the account's table.
      if (dialect === 'gamma') expect(positions.plain).toMatch(/USDTKES\tbuy\t[^\t]*\t12000\.00\t/);
      const openAccount = await read('account');
      await sameAsServer(openAccount, '/account');
      const { balance_usdc } = await server('/account');
      if (dialect === 'gamma') expect(typeof balance_usdc).toBe('string');
      expect(openAccount.table).toContain(Number(balance_usdc).toLocaleString('en-US', { minimumFractionDigits: 2 }));

      // full reduce: the side is flat, whatever status the dialect gives the hedge
      await hedge('table', 'reduce', MARKET, 'buy', '12000', '--yes', '--again');
      expect([hedgeState(buyId).status, simulator.active('buy', MARKET)]).toEqual(['closed', []]);
      expect(account().history.map((record) => record.hedge_id)).toContain(buyId);

      // open again, then close
      const sellId = await opened('plain', ['open', MARKET, 'sell', '8000', '--tenor', '1', '--yes', '--again']);
      expect(hedgeState(sellId)).toMatchObject({ status: 'filled', side: 'sell', notionalUsd: 8000 });
      const close = await hedge('json', 'close', MARKET, 'sell', '--yes', '--again');
      expect(JSON.parse(close.stdout)).toMatchObject({ hedge_id: sellId, market: MARKET, side: 'sell' });
      expect([hedgeState(sellId).status, simulator.active('sell', MARKET), account().activeHedgeStacks]).toEqual([
        'closed',
        [],
        {},
      ]);

      // the lists: every hedge of the run, however the server pages (beta refuses any page-size name
      // but its own, and names it; the others ignore hedge's guess or honour it)
      const list = await read('hedges', '--limit', '20');
      const listed = simulator.requests('GET', '/hedges').at(-1)!;
      expect(listed.status).toBe(200);
      if (dialect === 'beta') expect(listed.query).toEqual({ per_page: '20' });
      await sameAsServer(list, `/hedges?${wire.pageSizeParameter}=20`);
      shown(list, sellId);

      const one = await read('hedges', sellId);
      await sameAsServer(one, `/hedges/${sellId}`);
      shown(one, sellId);

      const history = await read('history', '--limit', '20');
      expect(simulator.requests('GET', '/hedges/history').at(-1)!.status).toBe(200);
      await sameAsServer(history, `/hedges/history?${wire.pageSizeParameter}=20`);
      // TSV carries every field; the table is fitted to the terminal and may shorten the reference.
      expect(history.plain).toContain(reference);
      expect(history.table).toMatch(new RegExp(`${MARKET}\\s+sell[^\\n]*\\n[^\\n]*${MARKET}\\s+buy`));

      expect(JSON.parse((await hedge('json', 'positions')).stdout)).toEqual([]);
      for (const mode of ['table', 'plain'] as const) {
        const flat = await hedge(mode, 'positions');
        expect(`${flat.stdout}${flat.stderr}`).toContain('No open positions.');
      }

      const price = await read('price', MARKET);
      await sameAsServer(price, `/prices?symbols=${MARKET}`);
      shown(price, MARKET);

      // The only refusals of the whole run are the ones hedge learned from, each once: the
      // add's amount under hedge's guess, and (beta) the page-size guess on the first list.
      const refused = simulator.sandbox.requestLog
        .filter((entry) => entry.errorCode !== null)
        .map((entry) => `${entry.method} ${entry.path} ${entry.status} ${entry.errorCode}`);
      expect(refused).toEqual([
        ...(dialect === 'beta' ? ['GET /hedges 400 validation_error'] : []),
        ...(wire.changeNotionalField !== 'notional_usd' ? ['POST /hedges/add 400 validation_error'] : []),
      ]);
    });
  });
});

it('hedge sandbox serve --dialect: prints the wire settings the dialect needs; sourced, they let the CLI page and read it', async () => {
  const config = tempDir('hedge-serve-');
  let server: ChildProcess | undefined;
  let stdout = '';
  let stderr = '';
  const served = runHedge('sandbox serve --dialect beta --hostile-text --fill-delay 20', {
    configDir: config.path,
    spawn: true,
    timeoutMs: 120_000,
    onSpawn: (child) => {
      server = child;
      child.stdout!.on('data', (chunk) => (stdout += chunk));
      child.stderr!.on('data', (chunk) => (stderr += chunk));
    },
  });
  try {
    await until(() => stderr.includes('Ctrl-C'), 'serve to start', { process: served });
    const settings = Object.fromEntries(
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/=(.*)/s, 2)),
    );
    expect(Object.keys(settings)).toEqual([
      'HEDGE_BASE_URL',
      'HEDGE_API_KEY',
      ...Object.values(WIRE_SETTING_SOURCES).map((source) => source.env),
    ]);
    expect(settings).toMatchObject({
      HEDGE_WIRE_PAGE_SIZE_PARAM: 'per_page',
      HEDGE_WIRE_NOTIONAL_FIELD: 'delta_usd',
      HEDGE_WIRE_PRICES_PARAM: 'symbols',
    });
    for (const text of ['beta wire dialect', 'Injected faults: hostile text.']) expect(stderr).toContain(text);
    // beta refuses a page-size parameter it does not know: this only works with the printed setting.
    const json = async (args: string) =>
      okJson(await runHedge(`${args} --json`, { env: settings, configDir: config.path }));
    expect(await json('hedges --limit 5')).toEqual([]);
    expect((await json('markets'))[0][HOSTILE_FIELD_NAME]).toBe(HOSTILE_FIELD_VALUE);
  } finally {
    server?.kill('SIGTERM');
    await served;
    config.remove();
  }
});

it('hedge sandbox serve --dialect: an unknown dialect is a usage error naming --dialect and the allowed values', async () => {
  const result = await runHedge('sandbox serve --dialect zeta');
  expect(result).toMatchObject({
    code: 2,
    stdout: '',
    stderr: 'hedge: --dialect: "zeta" is not allowed; expected reference, alpha, beta, gamma, delta, epsilon.\n',
  });
});

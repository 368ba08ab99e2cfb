// `--json` keeps everything the server sent: hedge's one shape — the names of
// docs/output.md — plus every field hedge does not map, under its own name, a nested object kept
// nested. For every read of a server object, on every wire dialect of the sandbox, behind a proxy
// that makes the service richer than the contract (fields nobody names, nested ones, inside a
// known nested object too), every leaf value of the server's answer — fetched directly, as another
// client would — must be in the CLI's --json: at its own path, or at the documented name of a
// field the dialect names its own way (src/sandbox/dialects.ts, the prices shapes of
// docs/output.md), decimal text as its number (docs/output.md "Formats"). A name hedge read a
// fact from is not repeated; what the server sent under one of our names meaning something else is
// kept under `_wire`. No mocked network: the real binary, a real sandbox, a real HTTP proxy.
import { SANDBOX_DIALECTS, type SandboxDialect } from '../../src/sandbox/dialect-names.js';
import { wireDialect } from '../../src/sandbox/dialects.js';
import { startRewriteProxy, type FieldProxy } from '../support/servers/field-proxy.js';
import {
  apiData,
  closedAfterEach,
  envFor,
  FILL_DELAY_MS,
  type Simulator,
  useSimulators,
} from '../support/simulator.js';

const start = useSimulators();
/** Proxies in front of a simulator, closed after each test. */
const proxied = closedAfterEach(startRewriteProxy);

/** What the proxy adds to every object the service answers with: a scalar, a list and a nested object. */
const EXTRA = {
  note_49: 'kept as sent',
  desk: { tags: ['fx', 'ngn'], limits: { daily_usd: 250_000, approver: { name: 'A. Okafor' } } },
} as const;

type Json = Record<string, unknown>;

/** The figures a script compares, per read, with the names of docs/output.md: JSON numbers whatever the server sent. */
const NUMBERS = {
  account:
    'balance_usdc margin_in_use_usdc open_exposure_usd unrealized_pnl_usd open_positions available_exposure_usd exposure_cap_usd',
  positions:
    'notional_usd entry_price mark_price gross_pnl_usd accrued_carry_usdc net_pnl_usd close_fee_usdc margin_usdc net_margin_usd units',
  history: 'notional_usd tenor_days entry_price exit_price gross_pnl_usd carry_usdc fees_usdc net_pnl_usd',
};

/**
 * The price objects inside GET /prices' data, with the market each is for, whatever the dialect's
 * shape: a list of them, an object keyed by market, or a list wrapped in `{rates: [...]}`.
 */
function priceObjects(data: any): Array<{ market: string; fields: Json }> {
  const list = Array.isArray(data) ? data : data.rates;
  if (!list) return Object.entries(data).map(([market, fields]) => ({ market, fields: fields as Json }));
  return list.map((fields: Json) => ({ market: String(fields.market ?? fields.symbol ?? fields.pair), fields }));
}

/**
 * The documented mapping of each dialect: a server name → the name of docs/output.md it is shown
 * under. Positions, account and history from the sandbox's own tables (the reference column is
 * our names); prices from the shapes docs/output.md names (`price --json` is `market`, `price`,
 * `timestamp` whatever the shape; a bid and an ask the mid is made of keep their names).
 */
function renamesOf(dialect: SandboxDialect) {
  const wire = wireDialect(dialect);
  const inverted = (names: Record<string, string | null>) =>
    Object.fromEntries(
      Object.entries(names).flatMap(([ours, theirs]) => (theirs === null || theirs === ours ? [] : [[theirs, ours]])),
    );
  const prices = {
    list: {},
    keyed: { mid: 'price', ts: 'timestamp' },
    'symbol-rate': { symbol: 'market', rate: 'price' },
    'pair-bid-ask': { pair: 'market', as_of: 'timestamp' },
  };
  return {
    positions: inverted(wire.positionFields),
    account: inverted(wire.accountFields),
    history: inverted(wire.historyFields),
    prices: prices[wire.pricesShape],
  };
}

/** Every leaf of a value, with its path: each scalar (null included) and each empty object or list. */
const leaves = (value: unknown, path: string[] = []): Array<[string[], unknown]> =>
  value !== null && typeof value === 'object' && Object.keys(value).length > 0
    ? Object.entries(value).flatMap(([key, inner]) => leaves(inner, [...path, key]))
    : [[path, value]];

/** The value at `path`, own properties only (undefined where there is none). */
const at = (value: unknown, path: readonly string[]) =>
  path.reduce<unknown>(
    (here, key) =>
      here !== null && typeof here === 'object' && Object.hasOwn(here, key) ? (here as Json)[key] : undefined,
    value,
  );

/** The server's value as --json shows it: the same, or a decimal string as its number. */
function shownAs(sent: unknown, shown: unknown) {
  if (typeof sent === 'string' && typeof shown === 'number')
    return /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(sent) && Number(sent) === shown;
  return JSON.stringify(sent) === JSON.stringify(shown);
}

/**
 * Every leaf the server sent is in what --json printed: at its own path, or at the documented
 * name of its top-level field (`renames`) — and then the server's name is not repeated. All that
 * is missing is named at once.
 */
function expectEveryLeaf(where: string, sent: Json, printed: Json, renames: Record<string, string> = {}) {
  const missing = [];
  for (const [path, value] of leaves(sent)) {
    const renamed = renames[path[0]];
    const shownPath = renamed === undefined ? path : [renamed, ...path.slice(1)];
    const shown = at(printed, shownPath);
    if (shown === undefined || !shownAs(value, shown))
      missing.push(
        `${path.join('.')} = ${JSON.stringify(value)} is not at ${shownPath.join('.')} (found ${JSON.stringify(shown)})`,
      );
    if (renamed !== undefined && Object.hasOwn(printed, path[0]))
      missing.push(`${path[0]} is shown as ${renamed} and again under its own name`);
  }
  // Nothing of ours took a name the server used for something else here: no `_wire`.
  if (Object.hasOwn(printed, '_wire')) missing.push(`_wire = ${JSON.stringify(printed._wire)}`);
  expect(missing, `${where}: what the server sent, missing from --json`).toEqual([]);
}

/** A write through the API (any error answer throws), then the frozen clock run past its fill; its data. */
async function landed(simulator: Simulator, path: string, body: object) {
  const data = await apiData(simulator, 'POST', path, body);
  simulator.advance(FILL_DELAY_MS + 1);
  return data;
}

/** Opens a filled hedge through the API, with a deal reference; its id. */
const openFilled = async (simulator: Simulator, market: string, side: string, notional: number, reference: string) =>
  (
    await landed(simulator, '/hedges', {
      market,
      side,
      notional_usd: notional,
      tenor_days: 3,
      client_reference: reference,
    })
  ).hedge_id;

/** What `hedge … --json` printed through the proxy (the run must exit 0). */
const printedVia =
  (simulator: Simulator, proxy: FieldProxy) =>
  async (...args: string[]) => {
    const result = await simulator.hedge([...args, '--json'], { env: envFor(proxy) });
    expect(result.code, `${simulator.sandbox.engine.state.dialect}: hedge ${args.join(' ')}\n${result.stderr}`).toBe(0);
    return JSON.parse(result.stdout);
  };

for (const dialect of SANDBOX_DIALECTS) {
  it(`--json keeps every value the server sent, on every dialect: ${dialect}: markets, price, quote, hedges, a hedge, history, positions and account; close --json and roll --json carry the closed hedge's history record with every value it has on the server`, async () => {
    // A frozen clock: the direct read and the CLI's read see the same instant (prices, carry, P&L); hedge's
    // waits move it (the close's, at the end).
    const simulator = await start({ preset: 'frozen', dialect, hostileText: true, stepped: true });
    // The market it trades on: the first one it lists as open (gamma lists USDTNGN disabled).
    const market = wireDialect(dialect).markets.find((listed) => listed.status === 'open')!.market;
    const renames = renamesOf(dialect);
    // A closed hedge (history), an open buy and sell (positions on both sides), each with a reference.
    await openFilled(simulator, market, 'sell', 5_000, 'DEAL-49-A');
    await landed(simulator, '/hedges/close', { market, side: 'sell' });
    const buyId = await openFilled(simulator, market, 'buy', 20_000, 'DEAL-49-B');
    const sellId = await openFilled(simulator, market, 'sell', 7_500, 'DEAL-49-C');
    // A proxy that makes every answer richer: EXTRA on each object of `data` (each price object for /prices), and a
    // field inside a quote's `pricing`.
    const proxy = await proxied(simulator.sandbox, (path, item) => {
      // The proxy hands over each element of a list, or the data object (alpha's keyed prices, gamma's wrapper).
      const targets =
        path === '/prices' && !('market' in item || 'symbol' in item)
          ? priceObjects(item).map((price) => price.fields)
          : [item];
      for (const target of targets) Object.assign(target, structuredClone(EXTRA));
      if (path === '/quotes' && item.pricing && typeof item.pricing === 'object')
        (item.pricing as Json).reference_source = 'onchain twap';
    });
    // What the server sent, read directly as another client would (any error answer throws).
    const sent = (method: 'GET' | 'POST', path: string, body?: unknown) => apiData(proxy, method, path, body);
    const printed = printedVia(simulator, proxy);
    /** `hedge ARGS --json` beside GET PATH read directly: as many records, each with every value sent; what was printed. */
    const kept = async (path: string, names: Record<string, string>, ...args: string[]) => {
      const shown = await printed(...args);
      const [sentRows, printedRows] = [[await sent('GET', path)].flat(), [shown].flat()];
      const what = `${dialect} ${args.join(' ')}`;
      expect(printedRows.length, `${what}: rows`).toBe(sentRows.length);
      sentRows.forEach((row, index) => expectEveryLeaf(`${what}[${index}]`, row, printedRows[index], names));
      return shown;
    };

    const markets = await kept('/markets', {}, 'markets');

    const listed = markets.map((entry: any) => String(entry.market));
    for (const [args, symbols] of [
      [['price', market], market],
      [['price'], listed.join(',')],
    ] as const) {
      const sentPrices = priceObjects(await sent('GET', `/prices?symbols=${symbols}`));
      const shown = await printed(...args);
      expect(shown.map((price: any) => price.market)).toEqual(sentPrices.map((price) => price.market));
      for (const { market: pricedMarket, fields } of sentPrices) {
        const record = shown.find((price: any) => price.market === pricedMarket)!;
        // One shape first: market, price, timestamp, whatever the dialect's prices look like.
        expect(Object.keys(record).slice(0, 3), `${dialect} ${args.join(' ')}`).toEqual([
          'market',
          'price',
          'timestamp',
        ]);
        // A price and the bid and ask it is made of (gamma's) are numbers, whatever text the server sent.
        for (const name of ['price', 'bid', 'ask'])
          if (name === 'price' || name in record) expect(typeof record[name], `${dialect} ${name}`).toBe('number');
        expectEveryLeaf(`${dialect} ${args.join(' ')} ${pricedMarket}`, fields, record, renames.prices);
      }
    }

    const quoteBody = { market, side: 'buy', notional_usd: 10_000, tenor_days: 3 };
    expectEveryLeaf(
      `${dialect} quote`,
      await sent('POST', '/quotes', quoteBody),
      await printed('quote', market, 'buy', '10000', '--tenor', '3'),
    );

    await kept('/hedges', {}, 'hedges');
    await kept(`/hedges/${buyId}`, {}, 'hedges', buyId);
    const history = await kept('/hedges/history', renames.history, 'history');
    const positions = await kept('/positions', renames.positions, 'positions');
    // The one shape: every line carries our side and notional, whatever the dialect calls them (beta: from the hedge).
    expect(positions.map((line: any) => [line.side, line.notional_usd]).sort()).toEqual([
      ['buy', 20_000],
      ['sell', 7_500],
    ]);
    const account = await kept('/account', renames.account, 'account');
    for (const [what, rows] of [
      ['account', [account]],
      ['positions', positions],
      ['history', history],
    ] as const)
      for (const row of rows)
        for (const name of NUMBERS[what].split(' '))
          expect(typeof row[name], `${dialect} ${what}.${name}`).toBe('number');
    // A live view's NDJSON lines are the same shape.
    const watched = await printed('positions', '--watch', '1', '--count', '1');
    const line = (shown: Json) => [shown.market, shown.side, shown.notional_usd];
    expect(watched.data.map(line)).toEqual(positions.map(line));

    // A write's --json keeps the server object it embeds, in the one shape: close's realized, and a roll's
    // close.realized (beta: the record's id is `id`), each the closed hedge's history record.
    const { realized } = await printed('close', market, 'buy');
    const rolled = (await printed('roll', market, 'sell', '--tenor', '1')).close.realized;
    const idName = wireDialect(dialect).historyFields.hedge_id!;
    const records = await sent('GET', '/hedges/history');
    for (const [shown, id, side, notional] of [
      [realized, buyId, 'buy', 20_000],
      [rolled, sellId, 'sell', 7_500],
    ]) {
      expect(shown).toMatchObject({ hedge_id: id, side, notional_usd: notional, close_reason: 'closed' });
      const record = records.find((entry: any) => entry[idName] === id);
      expectEveryLeaf(`${dialect} ${side} close.realized`, record, shown, renames.history);
    }
  });
}

// One reading kit: a position that gives its P&L under two names ({pnl_usd, unrealized_pnl_usd}) is
// read the same by every command. The one table (api/wire/fields.ts) reads `pnl_usd` first: the
// spec's figure of a line is its net P&L; "unrealized" is the spec's word for the account's figure.
it('a server field under one of our names that means something else is kept under _wire: alpha: a positions notional_usd of "n/a" beside size_usd, an account open_positions of "two", a price object beside the mid; a position\'s P&L under two names: positions and report read the same value from the same payload', async () => {
  const simulator = await start({ preset: 'frozen', dialect: 'alpha' });
  await openFilled(simulator, 'USDTNGN', 'buy', 20_000, 'DEAL-49-W');
  const proxy = await proxied(simulator.sandbox, (path, item) => {
    if (path === '/positions') Object.assign(item, { notional_usd: 'n/a', pnl_usd: 5, unrealized_pnl_usd: 7 });
    if (path === '/account') item.open_positions = 'two';
    if (path === '/prices')
      for (const price of Object.values(item))
        Object.assign(price as Json, { price: { source: 'twap', window_s: 300 } });
  });
  const printed = printedVia(simulator, proxy);
  const [sentLine] = await apiData(proxy, 'GET', '/positions');
  const [line] = await printed('positions');
  // Our name holds what hedge read (alpha's size_usd, not repeated); the server's own value is not lost.
  expect(line).toMatchObject({ notional_usd: sentLine.size_usd, side: 'buy', _wire: { notional_usd: 'n/a' } });
  expect(line).not.toHaveProperty('size_usd');
  expect([line.net_pnl_usd, (await printed('report')).unrealized]).toEqual([5, { positions: 1, net_pnl_usd: 5 }]);
  const sentAccount = await apiData(proxy, 'GET', '/account');
  const account = await printed('account');
  expect(account).toMatchObject({
    open_positions: sentAccount.open_position_count,
    _wire: { open_positions: 'two' },
  });
  expect(account).not.toHaveProperty('open_position_count');
  const sentPrices = await apiData(proxy, 'GET', '/prices?symbols=USDTNGN');
  const [price] = await printed('price', 'USDTNGN');
  expect(price).toEqual({
    market: 'USDTNGN',
    price: sentPrices.USDTNGN.mid,
    timestamp: sentPrices.USDTNGN.ts,
    _wire: { price: { source: 'twap', window_s: 300 } },
  });
  // --raw is the server's data as sent, its names and its text.
  expect((await printed('positions', '--raw'))[0]).toEqual(sentLine);
});

// A server (or anyone who can set a reference on the account) must not drive the desk's terminal.
// Against a `hostileText` simulator (an extra field on every market whose name and value carry
// escape sequences, the same in every error message) plus a market name and client references
// carrying them, hedge runs on a terminal (in-process as on one, and on a real pseudo-terminal) and
// in a pipe (plain and --json): no window-title or clipboard OSC, no clear-screen, no BEL, no bidi
// override, no zero-width space reaches the output raw. With NO_COLOR the CLI writes no escape of
// its own, so none may appear. --json stays valid JSON that parses back to the exact hostile
// strings. A --ref carrying any of them is refused before anything is sent (in a pipe, one line:
// test/reliability/bad-input.test.ts).
import { HOSTILE_FIELD_NAME, HOSTILE_FIELD_VALUE, HOSTILE_TEXT } from '../../src/sandbox/http/server.js';
import { runHedge, type HedgeArgs } from '../support/hedge-cli.js';
import { startAnswerProxy, startRewriteProxy, type FieldProxy } from '../support/servers/field-proxy.js';
import { drawScreen, KEYS, spawnInTerminal } from '../support/servers/pseudo-terminal.js';
import {
  apiData,
  colleagueCloses,
  colleagueOpens,
  envFor,
  MARKET,
  startSimulator,
  withSimulator,
  type Simulator,
} from '../support/simulator.js';
import { exits } from '../support/cli-runs.js';

/** A listed market whose name carries a window-title escape, a clear-screen, a bidi override and a zero-width space (at most 32 characters). */
const HOSTILE_MARKET = 'EVL\u001b]0;pw\u0007\u001b[2J\u202e\u200bX';
const HOSTILE_REFERENCE = `deal ${HOSTILE_TEXT} end`;

/** Where `text` holds what must never reach a terminal raw: ESC (NO_COLOR: the CLI sends none of its own), BEL, bidi overrides, zero-width characters. */
function unsafeIn(text: string) {
  const match = /[\u001b\u0007\u009b\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060\ufeff]/u.exec(text);
  if (!match) return undefined;
  const at = match.index;
  return `U+${match[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`;
}

/** Colour codes and a newline that would start a forged line of hedge's own, as a hostile server writes them. */
const FORGED_WORDS = ' \u001b[8mHIDDEN\u001b[0m\nhedge: FORGED';

/** A proxy's rewrite adding `words` to every error message the server sends. */
const errorsSaying =
  (words = FORGED_WORDS) =>
  (_request: unknown, envelope: Record<string, unknown>) => {
    const { error } = envelope as { error?: { message: string } | null };
    if (error) error.message += words;
  };

/** `hedge args` against `proxy` in front of `server`; the proxy is closed once it has run. */
async function runThrough(server: Simulator, proxy: FieldProxy, args: HedgeArgs) {
  try {
    return await runHedge(args, {
      configDir: server.configDir,
      env: envFor({ baseUrl: proxy.baseUrl, apiKey: server.apiKey }),
    });
  } finally {
    await proxy.close();
  }
}

let simulator: Simulator;
let hostileHedgeId: string;

beforeAll(async () => {
  simulator = await startSimulator({
    hostileText: true,
    fillDelayMs: 10,
    extraMarkets: [{ market: HOSTILE_MARKET, status: 'open', basePrice: 100 }],
  });
  // An open hedge on the hostile market, and a closed one (history) on USDTNGN, both with a hostile reference.
  hostileHedgeId = (
    await apiData(simulator, 'POST', '/hedges', {
      market: HOSTILE_MARKET,
      side: 'buy',
      notional_usd: 1000,
      tenor_days: 1,
      client_reference: HOSTILE_REFERENCE,
    })
  ).id;
  await colleagueOpens(simulator, 'sell', 2000, 1, HOSTILE_REFERENCE);
  await colleagueCloses(simulator, 'sell');
  expect(
    simulator
      .hedges()
      .map((hedge) => hedge.status)
      .sort(),
  ).toEqual(['closed', 'filled']);
});

afterAll(async () => {
  await simulator?.close();
});

/** Read commands whose output carries hostile text, with their exit; the last one fails (exit 3) with a hostile message. */
const READS: Array<[() => string[], number]> = [
  [() => ['markets'], 0],
  [() => ['hedges'], 0],
  [() => ['hedges', hostileHedgeId], 0],
  [() => ['history'], 0],
  [() => ['positions'], 0],
  [() => ['hedges', 'hdg_nosuchhedge0000000000000'], 3],
];

/**
 * Drawn in-process as on a terminal (what hedge writes to one); `real`: on a pseudo-terminal. The
 * last read (a hostile error message) and the first refusal go to a real one, the rest in-process.
 */
function onTerminal(args: string[], real = false) {
  return drawScreen({ configDir: simulator.configDir, args, env: simulator.env, cols: 200, real });
}

it.each(READS)(
  'hostile text on a terminal: read %#: nothing raw reaches the terminal; the text shows escaped',
  async (args, exit) => {
    const { code, raw, screen } = await onTerminal(args(), exit === 3);
    expect(code, screen).toBe(exit);
    expect(unsafeIn(raw)).toBeUndefined();
    // The hostile text was shown, made visible, not silently dropped.
    expect(screen).toMatch(/\\x1b|\\u202e/);
  },
);

it.each([
  ['a window-title escape', `deal\u001b]0;pwned\u0007`],
  ['a bidi override', 'deal\u202e24-LAED'],
  ['a zero-width space', 'deal\u200b42'],
])(
  'hostile text on a terminal: open --ref with %s is refused (exit 2), shown escaped, nothing sent',
  async (name, reference) => {
    const writes = simulator.writes().length;
    const real = name === 'a window-title escape';
    const { code, raw, screen } = await onTerminal(
      ['open', MARKET, 'buy', '1000', '--tenor', '1', '--ref', reference, '--yes'],
      real,
    );
    expect(code, screen).toBe(2);
    expect(screen).toMatch(/^hedge: --ref/m);
    expect(unsafeIn(raw)).toBeUndefined();
    expect(simulator.writes()).toHaveLength(writes);
  },
);

it('hostile text in a pipe: every read: plain output and stderr carry nothing raw; --json is valid JSON with nothing raw, and parses back to the exact strings the server sent', async () => {
  const parsed = [];
  for (const [args, exit] of READS) {
    const [plain, json] = await Promise.all([args(), [...args(), '--json']].map((words) => simulator.hedge(words)));
    for (const result of [plain, json]) {
      exits(result, exit);
      expect([unsafeIn(result.stdout), unsafeIn(result.stderr)], args().join(' ')).toEqual([undefined, undefined]);
    }
    expect(`${plain.stdout}${plain.stderr}`).toMatch(/\\x1b|\\u202e/);
    // Data on stdout, or the error document on stderr: either parses.
    parsed.push(JSON.parse(exit === 0 ? json.stdout : json.stderr));
  }
  const [markets, hedges, , history, positions, missing] = parsed;
  expect(markets.map((market: any) => market.market)).toEqual(expect.arrayContaining([MARKET, HOSTILE_MARKET]));
  for (const market of markets) expect(market[HOSTILE_FIELD_NAME]).toBe(HOSTILE_FIELD_VALUE);
  expect([hedges, hedges.map((hedge: any) => hedge.client_reference), history]).toEqual([
    (await simulator.api('GET', '/hedges')).body.data,
    [HOSTILE_REFERENCE, HOSTILE_REFERENCE],
    (await simulator.api('GET', '/hedges/history')).body.data,
  ]);
  expect(positions[0]).toMatchObject({ market: HOSTILE_MARKET, hedge_id: hostileHedgeId });
  expect(missing.error.code).toBe('hedge_not_found');
  expect(missing.error.message).toContain(HOSTILE_TEXT);
});

// Select Graphic Rendition, the sequences hedge's own colours use: still never passed on from the server.
it('colour codes from the server: a position field so named is shown escaped in the note of hidden columns; a history reference so written, in report CSV and TSV', () =>
  withSimulator({}, async (server) => {
    server.seedOpen('buy', 1_000);
    server.sandbox.seedHedges({ apiKey: server.apiKey, count: 2 });
    const proxy = await startRewriteProxy(server.sandbox, (path, item) => {
      if (path === '/positions') item['\u001b[8mconcealed\u001b[0m\u001b[41m'] = 'x';
      if (path === '/hedges/history') item.client_reference = '\u001b[8mHIDDEN\u001b[0m';
    });
    // Wide enough that the note's one line names every column it leaves out, this one (nobody declared it: the last) too.
    const hedge = (args: string) =>
      runHedge(args, {
        configDir: server.configDir,
        env: { ...envFor({ baseUrl: proxy.baseUrl, apiKey: server.apiKey }), COLUMNS: '160' },
      });
    try {
      const [table, csv, tsv] = [
        await hedge('positions --format table'),
        await hedge('report --by ref --format csv'),
        await hedge('report --by ref --format tsv'),
      ];
      for (const run of [table, csv, tsv]) {
        exits(run, 0);
        expect([unsafeIn(run.stdout), unsafeIn(run.stderr)]).toEqual([undefined, undefined]);
      }
      expect(table.stderr.replace(/\s+/g, ' ')).toMatch(
        /Hidden at 160 columns: [^—]*, \\x1b\[8mconcealed\\x1b\[0m\\x1b\[41m — /,
      );
      for (const run of [csv, tsv]) expect(run.stdout).toContain('\\x1b[8mHIDDEN\\x1b[0m');
      expect(server.requests('GET', '/hedges/history').length).toBeGreaterThanOrEqual(2);
    } finally {
      await proxy.close();
    }
  }));

it('hostile text at a prompt: the open wizard lists a market whose name carries escapes, shown escaped; nothing raw reaches the terminal', async () => {
  const writes = simulator.writes().length;
  const terminal = spawnInTerminal({ configDir: simulator.configDir, env: simulator.env, args: ['open'], cols: 200 });
  try {
    await terminal.waitFor('? What do you have?');
    terminal.write(`${KEYS.DOWN}${KEYS.DOWN}${KEYS.ENTER}`);
    await terminal.waitFor('? Market');
    await terminal.waitFor('EVL\\x1b]0;pw\\x07');
    // The prompt draws with cursor and colour sequences of its own; none of the server's (window title, clear-screen, BEL, bidi override, zero-width space) passes.
    const raw = terminal.raw();
    for (const sequence of ['\u001b]', '\u0007', '\u001b[2J', '\u202e', '\u200b'])
      expect(raw.includes(sequence), JSON.stringify(sequence)).toBe(false);
  } finally {
    terminal.kill();
  }
  expect(simulator.writes()).toHaveLength(writes);
});

it('hostile text in a header: a request id carrying C1 controls, a soft hyphen and a tab is shown escaped in the --verbose lines too', () =>
  withSimulator({}, async (server) => {
    const proxy = await startAnswerProxy(server.sandbox, () => {}, undefined, {
      headers: { 'x-request-id': 'req_\u009b2J\u00ad\tX' },
    });
    const run = exits(await runThrough(server, proxy, '--verbose markets'), 0);
    expect(run.stderr).toMatch(/request-id=req_.*\\x9b2J.*\\u00ad\\x09X$/m);
    expect(run.stderr).not.toMatch(/[\u009b\u00ad\t]/);
    expect(server.requests('GET', '/markets')).toHaveLength(1);
  }));

it("hostile text in an error message: a server's newline is shown escaped, never a line of its own that reads as hedge's; --json keeps the exact words", () =>
  withSimulator({}, async (server) => {
    const forged = '\nhedge: FORGED — run `hedge close --all`';
    const proxy = await startAnswerProxy(server.sandbox, errorsSaying(forged));
    const hedge = (args: string) =>
      runHedge(args, { configDir: server.configDir, env: envFor({ baseUrl: proxy.baseUrl, apiKey: server.apiKey }) });
    try {
      const [text, json] = [
        await hedge('hedges hdg_nosuchhedge0000000000000'),
        await hedge('hedges hdg_nosuchhedge0000000000000 --json'),
      ];
      exits(text, 3);
      exits(json, 3);
      expect(text.stderr).toContain('is not one of yours\\x0ahedge: FORGED');
      expect(text.stderr).not.toMatch(/^hedge: FORGED/m);
      expect(JSON.parse(json.stderr).error.message).toContain(forged);
      expect(server.requests('GET', '/hedges/hdg_nosuchhedge0000000000000')).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  }));

it("hostile text in a warning: a pre-trade read's refusal carrying the server's colour codes and a newline is shown escaped in the warning", () =>
  withSimulator({}, async (server) => {
    // GET /account refused (429, back in an hour): the headroom is not checked and the open goes on.
    server.sandbox.setFaults({ next429RetryAfter: { count: 5, retryAfter: '3600' }, match: { path: '/account' } });
    const proxy = await startAnswerProxy(server.sandbox, errorsSaying());
    const run = exits(await runThrough(server, proxy, ['open', MARKET, 'buy', '1000', '--tenor', '1', '--yes']), 0);
    expect(run.stderr).toMatch(/^Pre-trade check: .*\\x1b\[8mHIDDEN\\x1b\[0m\\x0ahedge: FORGED/m);
    expect(run.stderr).not.toMatch(/^hedge: FORGED/m);
    expect(unsafeIn(run.stderr)).toBeUndefined();
    expect(server.requests('POST', '/hedges')).toHaveLength(1);
  }));

it.each([
  // Two reads of the records at once, five attempts each: ten refusals leave both unread.
  ['positions', ['positions'], 10, /^.*GET \/hedges failed \(.*\\x1b\[8mHIDDEN\\x1b\[0m\\x0ahedge: FORGED/m],
  [
    'history --ref',
    ['history', '--ref', 'DEAL-9'],
    5,
    /^The deal's hedge records were not read: GET \/hedges failed \(.*\\x1b\[8mHIDDEN\\x1b\[0m\\x0ahedge: FORGED/m,
  ],
  [
    'open --ref',
    ['open', MARKET, 'sell', '1000', '--tenor', '1', '--ref', 'DEAL-9', '--yes'],
    5,
    /^Could not check whether an active hedge already carries client reference "DEAL-9" \(GET \/hedges: .*\\x1b\[8mHIDDEN\\x1b\[0m\\x0ahedge: FORGED/m,
  ],
] as const)(
  "hostile text in a warning: %s, its hedge records refused with the server's colour codes and a newline, warns with them escaped",
  (_name, args, refusals, warning) =>
    withSimulator({}, async (server) => {
      server.seedOpen('buy', 1_000);
      // GET /hedges refused (429, back in an hour): the records are not read and the command goes on.
      server.sandbox.setFaults({
        next429RetryAfter: { count: refusals, retryAfter: '3600' },
        match: { path: /^\/hedges$/ },
      });
      const proxy = await startAnswerProxy(server.sandbox, errorsSaying());
      const run = exits(await runThrough(server, proxy, [...args]), 0);
      expect(run.stderr).toMatch(warning);
      expect(run.stderr).not.toMatch(/^hedge: FORGED/m);
      expect(unsafeIn(run.stderr)).toBeUndefined();
      expect(server.requests('GET', '/hedges').length).toBeGreaterThan(0);
    }),
);

it("hostile text in doctor: the server's refusal of the key, with its colour codes and a newline, is shown escaped in the check's line", () =>
  withSimulator({}, async (server) => {
    // The proxy sends another key upstream: the server refuses it (401), in hostile words.
    const proxy = await startAnswerProxy(server.sandbox, errorsSaying(), 'Bearer not-the-key');
    try {
      const { code, raw, screen } = await drawScreen({
        configDir: server.configDir,
        env: envFor({ baseUrl: proxy.baseUrl, apiKey: server.apiKey }),
        args: ['doctor'],
        cols: 400,
      });
      expect(code, screen).toBe(4);
      expect(screen).toMatch(/✗ Key accepted .*\\x1b\[8mHIDDEN\\x1b\[0m\\x0ahedge: FORGED/);
      expect(screen).not.toMatch(/^hedge: FORGED/m);
      expect(unsafeIn(raw)).toBeUndefined();
    } finally {
      await proxy.close();
    }
  }));

it('hostile text in a note: a position\'s hedge id carrying colour codes and a newline is shown escaped in the "already open" note', () =>
  withSimulator({}, async (server) => {
    server.seedOpen('buy', 1_000);
    const proxy = await startRewriteProxy(server.sandbox, (path, item) => {
      if (path === '/positions') item.hedge_id = `${String(item.hedge_id)}\u001b[8mHIDDEN\u001b[0m\nhedge: FORGED`;
    });
    const run = await runThrough(server, proxy, ['open', MARKET, 'buy', '1000', '--tenor', '1', '--yes']);
    expect(run.stderr).toMatch(
      /^Note: the buy side of .* is already open \(.*\\x1b\[8mHIDDEN\\x1b\[0m\\x0ahedge: FORGED/m,
    );
    expect(run.stderr).not.toMatch(/^hedge: FORGED/m);
    expect(unsafeIn(run.stderr)).toBeUndefined();
  }));

it('hostile text in a note: a hedge record carrying the reference with an unknown status in colour codes and a newline is named escaped', () =>
  withSimulator({}, async (server) => {
    const { id } = await apiData(server, 'POST', '/hedges', {
      market: MARKET,
      side: 'buy',
      notional_usd: 1000,
      tenor_days: 1,
      client_reference: 'DEAL-9',
    });
    const proxy = await startRewriteProxy(server.sandbox, (path, item) => {
      if (path === '/hedges' && item.id === id) item.status = 'paused\u001b[8mHIDDEN\u001b[0m\nhedge: FORGED';
    });
    const run = await runThrough(server, proxy, [
      'open',
      MARKET,
      'sell',
      '1000',
      '--tenor',
      '1',
      '--ref',
      'DEAL-9',
      '--yes',
    ]);
    expect(run.stderr).toMatch(
      /^Note: hdg_\w+ \(paused\\x1b\[8mHIDDEN\\x1b\[0m\\x0ahedge: FORGED\) carries this reference/m,
    );
    expect(run.stderr).not.toMatch(/^hedge: FORGED/m);
    expect(unsafeIn(run.stderr)).toBeUndefined();
  }));

it("hostile text in a rolled hedge's maturity: the roll's closing line says it as sent, escaped, never labelled UTC nor a line of its own", () =>
  withSimulator({}, async (server) => {
    const old = server.seedOpen('buy', 1_000);
    const forged = 'soon\nhedge: FORGED';
    // The new hedge's record as a hostile server writes it; the rolled one's as it was.
    const proxy = await startAnswerProxy(server.sandbox, (request, envelope) => {
      const hedge = envelope.data as { id?: string; maturity_at?: unknown } | null;
      if (request.path.startsWith('/hedges/hdg_') && hedge?.id !== undefined && hedge.id !== old.id)
        hedge.maturity_at = forged;
    });
    const run = exits(await runThrough(server, proxy, 'roll USDTNGN buy --tenor 3 --yes'), 0);
    const rolled = run.stderr.split('\n').find((line) => line.startsWith('Rolled: '));
    expect(rolled).toContain('until soon\\x0ahedge: FORGED.');
    expect(run.stderr + run.stdout).not.toMatch(/^hedge: FORGED/m);
    expect(rolled).not.toContain('UTC');
  }));

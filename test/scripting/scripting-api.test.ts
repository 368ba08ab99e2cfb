// `hedge api PATH` end to end against the simulator: reads, writes through the journal, refusals
// that send nothing (asserted on the server's own request log), and a write killed mid-answer that
// the same command finishes once.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIVE_KEY, UNKNOWN_KEY } from '../support/keys.js';
import { MARKET, useSimulators } from '../support/simulator.js';
import { journalEntries, killWhen, ok, okJson, exits } from '../support/cli-runs.js';

const start = useSimulators();

const BUY_1000 = { market: MARKET, side: 'buy', notional_usd: 1000, tenor_days: 1 };

/** Runs `args` with its POST to `path` held after the server committed it, and kills the CLI -9 there. */
async function killedHeld(t: Awaited<ReturnType<typeof start>>, args: string, path: string) {
  t.sandbox.setFaults({ stall: 'body', match: { method: 'POST', path } });
  const held = () => t.writes().some((entry) => entry.status === 'stalled');
  expect((await killWhen(t, args.split(' '), held, `the POST ${path} committed and held`)).signal).toBe('SIGKILL');
  t.sandbox.setFaults({ stall: null, match: null });
}

it('hedge api: reads: GET prints the whole envelope; --query applies to it; one request with the profile key; --include prints the status line and the headers before the body; -f and -F on a GET go to the query string (typed values as text there), never turning it into a write; 404: the error envelope on stdout, the refusal on stderr, exit 3; a refused key is exit 4', async () => {
  const t = await start();
  t.seedOpen('buy', 10_000);
  expect(okJson(await t.hedge('api /hedges -f status=filled -F limit=5')).data).toHaveLength(1);
  expect([t.requests().map((entry) => [entry.method, entry.path, entry.query]), t.writes()]).toEqual([
    [['GET', '/hedges', { status: 'filled', limit: '5' }]],
    [],
  ]);

  const envelope = okJson(await t.hedge('api /markets'));
  expect(Object.keys(envelope)).toEqual(['data', 'error', 'meta']);
  expect(envelope.data.map((market: any) => market.market)).toContain(MARKET);
  expect(envelope.meta.allowed_markets).toContain(MARKET);

  expect(okJson(await t.hedge('api markets --query data[0].market'))).toBe(MARKET);
  const [head, body] = ok(await t.hedge('api -i /account')).stdout.split('\n\n');
  expect(head.split('\n')[0]).toBe('HTTP/1.1 200 OK');
  expect(head).toMatch(/^x-request-id: req_[0-9a-f]{16}$/m);
  expect(head).toMatch(/^content-type: application\/json/m);
  expect(JSON.parse(body).data).toHaveProperty('balance_usdc');

  const result = exits(await t.hedge('api /hedges/hdg_missing --json'), 3);
  expect(JSON.parse(result.stdout)).toMatchObject({ data: null, error: { code: 'hedge_not_found' } });
  expect(JSON.parse(result.stderr)).toMatchObject({
    error: { code: 'hedge_not_found', class: 'rejected', status: 404 },
  });
  expect(t.requests().map((entry) => [entry.method, entry.path, entry.status])).toEqual([
    ['GET', '/hedges', 200],
    ['GET', '/markets', 200],
    ['GET', '/markets', 200],
    ['GET', '/account', 200],
    ['GET', '/hedges/hdg_missing', 404],
  ]);
  const refused = exits(await t.hedge('api /account', { env: { HEDGE_API_KEY: UNKNOWN_KEY } }), 4);
  expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'unauthorized' } });
});

it('hedge api: the key never leaves for another host: a path naming another host, an absolute URL, a climb out of the base path, an encoded slash or a backslash is exit 2; so is -H with a value no header can carry, or -H Authorization, naming -H: nothing sent, nothing journaled; other headers reach the server', async () => {
  const t = await start();
  for (const [path, why] of [
    ['//evil.example/hedges', /would name another host/],
    ['http://evil.example/hedges', /is an absolute URL/],
    ['https://evil.example/v2/markets', /is an absolute URL/],
    ['/../../../markets', /climbs out of the base path/],
    ['/%2e%2e/%2e%2e/markets', /climbs out of the base path/],
    ['/hedges%2f..%2f..%2fx', /encoded slash/],
    ['\\\\evil.example\\x', /backslash/],
  ] as const)
    expect(exits(await t.hedge(`api ${path}`), 2, 'nothing was sent').stderr, path).toMatch(why);
  for (const args of [
    ['api', '-X', 'POST', '/hedges/close', '-f', 'market=USDTNGN', '-f', 'side=buy', '-H', 'X-Note: \u65e5\u672c'],
    ['api', '/account', '-H', 'X-Note: a\u0001b'],
  ]) {
    expect(exits(await t.hedge(args), 2).stderr).toBe(
      'hedge: -H: the value of X-Note has a line break, a control character or a character beyond Latin-1; a header value is printable ASCII or Latin-1 text; nothing was sent.\n',
    );
  }
  expect([t.requests(), await journalEntries(t)]).toEqual([[], []]);
  const refused = exits(
    await t.hedge(['api', '/account', '-H', 'Authorization: Bearer hpk_test_AAAAAAAAAAAAAAAAAAAAAAAA']),
    2,
  );
  expect(refused.stderr).toMatch(/^hedge: -H: Authorization cannot be set/m);
  expect(t.requests()).toEqual([]);
  ok(await t.hedge(['api', '/account', '-H', 'X-Desk: fx-1']));
  expect(t.requests()).toHaveLength(1);
});

it('hedge api: writes go through the journal: POST: sent once with an Idempotency-Key, journaled as api POST …, the server acted; -F types the body (numbers, booleans, null, @file); --input sends a JSON file', async () => {
  const t = await start();
  const hedge = t.seedOpen('buy', 10_000);
  expect(okJson(await t.hedge('api -X POST /hedges/close -f market=USDTNGN -f side=buy'))).toMatchObject({
    data: { status: 'submitted' },
    error: null,
  });
  const [post] = t.writes();
  expect(post).toMatchObject({ path: '/hedges/close', body: { market: MARKET, side: 'buy' }, status: 200 });
  expect(post.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  t.advance(3_600_000);
  expect(t.hedges()).toMatchObject([{ id: hedge.id, status: 'closed' }]);
  expect(await journalEntries(t)).toMatchObject([
    {
      command: 'api POST /hedges/close',
      outcome: 'done',
      idempotency_key: post.idempotencyKey,
      request: { method: 'POST', path: '/hedges/close', body: { market: MARKET, side: 'buy' } },
    },
  ]);
  const file = join(t.configDir, 'ref.txt');
  writeFileSync(file, 'DEAL-7');
  ok(
    await t.hedge(
      `api -X POST /quotes -f market=USDTNGN -f side=sell -F notional_usd=2500.5 -F tenor_days=3 -F note=@${file} -F flag=true -F none=null`,
    ),
  );
  const body = join(t.configDir, 'quote.json');
  writeFileSync(body, JSON.stringify(BUY_1000));
  ok(await t.hedge(`api -X POST /quotes --input ${body}`));
  expect(
    t
      .writes()
      .map((entry) => entry.body)
      .slice(1),
  ).toEqual([
    {
      market: MARKET,
      side: 'sell',
      notional_usd: 2500.5,
      tenor_days: 3,
      note: 'DEAL-7',
      flag: true,
      none: null,
    },
    BUY_1000,
  ]);
});

it('hedge api: writes go through the journal: --input and -F @file read as every input file is: a regular file of at most 4 MiB, stdin once; otherwise exit 2 naming the flag, nothing sent', async () => {
  const t = await start();
  const fifo = join(t.configDir, 'body.fifo');
  execFileSync('mkfifo', [fifo]);
  const big = join(t.configDir, 'big.txt');
  writeFileSync(big, 'x'.repeat(4 * 1024 * 1024 + 1));
  const refusals = [
    [
      `api -X POST /quotes --input ${fifo}`,
      /^hedge: cannot read the --input file .*body\.fifo: it is a FIFO \(named pipe\), not a regular file; expected a regular file/,
    ],
    [
      `api -X POST /quotes -F note=@${big}`,
      /^hedge: cannot read the -F file .*big\.txt: it holds more than 4 MiB, the most an input file may hold; the API takes a few fields per request/,
    ],
    [
      `api -X POST /quotes --input ${join(t.configDir, 'missing.json')}`,
      /^hedge: cannot read the --input file .*missing\.json: no such file/,
    ],
    [
      'api -X POST /quotes --input - -F note=@-',
      /^hedge: --input - and -F key=@- both read stdin, which can be read once/,
    ],
  ] as const;
  for (const [args, message] of refusals) {
    const result = exits(await t.hedge(args, { input: '{}' }), 2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
  }
  // JSON null: the journal could not tell it from no body, so a resume would send another request.
  const nothing = exits(await t.hedge('api -X POST /quotes --input -', { input: 'null' }), 2);
  expect(nothing.stderr).toBe(
    'hedge: --input: stdin is JSON null, not a body; leave out --input to send a request without one.\n',
  );
  expect(t.requests()).toEqual([]);
  // Piped in, the body and a value are read (once each).
  ok(await t.hedge('api -X POST /quotes --input -', { input: JSON.stringify(BUY_1000) }));
  ok(
    await t.hedge('api -X POST /quotes -f market=USDTNGN -f side=sell -F notional_usd=500 -F tenor_days=1 -F note=@-', {
      input: 'DEAL-9',
    }),
  );
  expect(t.writes().map((entry) => entry.body)).toEqual([
    BUY_1000,
    { market: MARKET, side: 'sell', notional_usd: 500, tenor_days: 1, note: 'DEAL-9' },
  ]);
});

it('hedge api: writes go through the journal: on a LIVE key without a terminal a write needs --yes: refused, nothing sent; a refused write is exit 3, journaled as rejected; --dry-run sends nothing', async () => {
  const t = await start();
  // The live key over https (plain http:// is for test keys): refused before any request all the same.
  const live = { HEDGE_API_KEY: LIVE_KEY, HEDGE_BASE_URL: t.baseUrl.replace('http:', 'https:') };
  exits(
    await t.hedge('api -X POST /hedges/close -f market=USDTNGN -f side=buy', { env: live }),
    2,
    '--yes is required to send POST /hedges/close with a LIVE key',
  );
  expect(t.requests()).toEqual([]);
  const refused = exits(await t.hedge('api -X POST /hedges/close -f market=USDTNGN -f side=buy'), 3);
  expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'no_open_hedge' } });
  expect(await journalEntries(t)).toMatchObject([
    { command: 'api POST /hedges/close', outcome: 'rejected', error_code: 'no_open_hedge' },
  ]);
  expect(
    okJson(await t.hedge('api -X POST /hedges/close -f market=USDTNGN -f side=sell --dry-run --json')),
  ).toMatchObject({
    dry_run: true,
    method: 'POST',
    path: '/hedges/close',
    body: { market: MARKET, side: 'sell' },
  });
  expect(t.writes()).toHaveLength(1);
});

it('hedge api: writes go through the journal: killed -9 while the answer was held: running it again resumes with the same key, one action on the server', async () => {
  const t = await start({ fillDelayMs: 3_600_000 });
  const hedge = t.seedOpen('buy', 10_000);
  const args = 'api -X POST /hedges/close -f market=USDTNGN -f side=buy';
  await killedHeld(t, args, '/hedges/close');
  const [left] = await journalEntries(t, '--pending');
  expect(left).toMatchObject({ command: 'api POST /hedges/close', outcome: 'pending' });
  const again = exits(await t.hedge(args), 0, 'Resuming the api POST /hedges/close started', left.idempotency_key);
  expect(JSON.parse(again.stdout)).toMatchObject({ data: { status: 'submitted' }, error: null });
  // Both sends carried the one key; the server replayed the first answer and acted once.
  expect(t.writes().map((entry) => entry.idempotencyKey)).toEqual([left.idempotency_key, left.idempotency_key]);
  t.advance(3_600_000);
  expect([t.hedges(), t.historyCount()]).toMatchObject([[{ id: hedge.id, status: 'closed' }], 1]);
  expect(await journalEntries(t)).toMatchObject([{ id: left.id, outcome: 'done' }]);
});

it('hedge api: writes go through the journal: hedge resume finishes a killed api write the same way', async () => {
  const t = await start();
  await killedHeld(
    t,
    'api -X POST /hedges -f market=USDTNGN -f side=sell -F notional_usd=3000 -F tenor_days=1',
    '/hedges',
  );
  const resumed = exits(await t.hedge('resume --json'), 0, 'Resuming the api POST /hedges started');
  expect(t.hedges()).toHaveLength(1);
  expect(JSON.parse(resumed.stdout)).toMatchObject({ data: { id: t.hedges()[0].id } });
  expect(new Set(t.writes().map((entry) => entry.idempotencyKey)).size).toBe(1);
  expect(await journalEntries(t)).toMatchObject([{ outcome: 'done', hedge_id: t.hedges()[0].id }]);
});

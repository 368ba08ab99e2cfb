// What `hedge mcp`'s plan and apply may read, through the official SDK's client (test/support/mcp.ts):
// only files under the server's roots (the working directory by default, `--root DIR` repeatable)
// and, when the client declares roots, under the client's too; a symbolic link that leads out is
// refused on its real path; the target can come inline as `rows`; and no answer ever
// carries anything read from a file (a refusal names the path and the roots; a bad file, its lines
// and columns). Before: plan on /etc/passwd answered with its first line in the error.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { runHedge, tempDir } from '../support/hedge-cli.js';
import { useMcpServers, type McpAnswer as Answer } from '../support/mcp.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { exits } from '../support/cli-runs.js';
import { BUY, everything, expectDone, expectRefused as refusedAs, json, SELL } from './answers.js';

const SECRET = 'hpk_live_SecretThatMustNeverLeave77';
const startSimulator = useSimulators();
const startServer = useMcpServers();

// A desk's folder the server is started in, another root, and a place outside both with secrets.
const desk = tempDir('hedge-mcp-desk-');
const books = tempDir('hedge-mcp-books-');
const elsewhere = tempDir('hedge-mcp-elsewhere-');
afterAll(() => [desk, books, elsewhere].forEach((dir) => dir.remove()));
const secretsFile = join(elsewhere.path, 'secrets.env');
writeFileSync(secretsFile, `API_KEY=${SECRET}\nDB_PASSWORD=${SECRET}\n`);
// A real target file outside the roots too: valid, so only the roots can stop it.
const targetOutside = join(elsewhere.path, 'target.csv');
for (const file of [targetOutside, join(desk.path, 'target.csv')])
  writeFileSync(file, `market,side,notional_usd,tenor_days\n${MARKET},buy,5000,3\n`);
writeFileSync(join(desk.path, 'not-a-target.txt'), `# a note\nuser=${SECRET}\n`);
mkdirSync(join(desk.path, 'sub'));
symlinkSync(secretsFile, join(desk.path, 'sub', 'innocent.csv'));
symlinkSync(join(elsewhere.path, 'missing.csv'), join(desk.path, 'sub', 'dangling.csv'));
symlinkSync(elsewhere.path, join(desk.path, 'linked-dir'));
symlinkSync(join(desk.path, 'target.csv'), join(desk.path, 'alias.csv'));
execFileSync('mkfifo', [join(desk.path, 'pipe.csv')]);
writeFileSync(join(books.path, 'book.json'), JSON.stringify([{ ...SELL, notional_usd: 2000, tenor_days: 7 }]));

async function serve(simulator: Simulator, args: string[], roots?: string[]) {
  const client = new Client(
    { name: 'hedge-e2e-roots', version: '1.0.0' },
    roots ? { capabilities: { roots: { listChanged: true } } } : {},
  );
  let rootsAsked = 0;
  if (roots) {
    client.setRequestHandler(ListRootsRequestSchema, () => {
      rootsAsked += 1;
      return { roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href, name: dir })) };
    });
  }
  const { call, close } = await startServer(simulator, { args, cwd: desk.path, client });
  return { call, close, rootsAsked: () => rootsAsked };
}

/** The POSTs that act (a plan's quotes are POSTs too, and act on nothing). */
const trades = (simulator: Simulator) => simulator.writes().filter((entry) => entry.path !== '/quotes');

/** A refusal of `file`: usage, exit 2, naming the argument, with nothing of any file in it. */
function expectRefused(answer: Answer, message: RegExp) {
  refusedAs(answer, { error: { code: 'usage', class: 'usage', argument: 'file' }, exit_code: 2 });
  expect(json(answer).error.message).toMatch(message);
  expectNoSecret(answer);
}

function expectNoSecret(answer: Answer) {
  const text = everything(answer);
  for (let start = 0; start + 10 <= SECRET.length; start++) expect(text).not.toContain(SECRET.slice(start, start + 10));
  expect(text).not.toMatch(/API_KEY|DB_PASSWORD|root:|PATH=/);
}

it('hedge mcp: plan and apply read only under the roots: by default the working directory: a file in it plans; any path outside it or link out of it is refused, nothing read', async () => {
  const simulator = await startSimulator();
  const { call, close } = await serve(simulator, ['--max-notional', '1000', '--markets', MARKET]);

  const inside = await call('plan', { file: 'target.csv' });
  expectDone(inside);
  // A non-zero exit without an error (a plan that is not at target) is said beside the document.
  expect(inside.content[1].text).toBe(
    'exit code 9 (changes): `hedge plan`: the account is not at the target (changes are needed)',
  );
  expect(json(inside)).toMatchObject({
    source: 'target.csv',
    steps: [{ action: 'open', market: MARKET, side: 'buy', target_usd: 5000, line: 2 }],
  });
  // A link that stays inside is fine: it is judged on where it leads.
  expect(json(await call('plan', { file: 'alias.csv' })).steps).toHaveLength(1);
  const readsForTwoPlans = simulator.requests().length;
  expect(readsForTwoPlans).toBeGreaterThan(0);

  // A FIFO is refused at once (an open would wait for a writer), and the server goes on serving.
  expectRefused(
    await call('apply', { file: 'pipe.csv' }),
    /^file: "pipe.csv" is not a regular file; expected a target file \(CSV or JSON\)\.$/,
  );
  // Every path outside gets the same sentence, whether it exists or not (only the path differs);
  // so does every link that leads out, under the operator's limits too.
  const outside = [
    '/etc/passwd',
    '/etc/shadow',
    '/proc/self/environ',
    '/dev/zero',
    '/nonexistent/target.csv',
    secretsFile,
    targetOutside,
    `../${elsewhere.path.split('/').at(-1)}/target.csv`,
  ];
  for (const tool of ['plan', 'apply']) {
    for (const file of outside)
      expectRefused(
        await call(tool, { file }),
        /^file: "[^"]*" is outside the roots this server reads from \(.+\); nothing was read\./,
      );
    for (const file of ['sub/innocent.csv', 'sub/dangling.csv', 'linked-dir/target.csv'])
      expectRefused(
        await call(tool, { file }),
        /^file: "[^"]*" leads through a symbolic link to no file under the roots this server reads from \(.+\); nothing was read\.$/,
      );
  }
  expectRefused(await call('plan', { file: 'sub' }), /is not a regular file/);
  expectRefused(await call('plan', { file: 'missing.csv' }), /^file: "missing.csv" cannot be read: no such file\.$/);
  // Nothing was asked of the server for any refused call, and apply sent nothing.
  expect(simulator.requests()).toHaveLength(readsForTwoPlans);
  expect(trades(simulator)).toEqual([]);

  // A file inside that is not a target file: its problems by line and column, not its content.
  const notTarget = await call('plan', { file: 'not-a-target.txt' });
  refusedAs(notTarget, { error: { code: 'usage' }, exit_code: 2 });
  expect(json(notTarget).error.message).toContain('not-a-target.txt:2: column 1 of the header is not a known column');
  expectNoSecret(notTarget);

  const said = await close();
  expect(said).toContain(`plan and apply read target files under ${desk.path}`);
  expect(said).not.toContain(SECRET.slice(9));
});

it('hedge mcp: plan and apply read only under the roots: --root replaces the working directory, and is repeatable; a --root that is no directory stops the server (exit 2); the target inline as rows: plan and apply work without any file; bad rows are named by item and column', async () => {
  const simulator = await startSimulator();
  const { call } = await serve(simulator, ['--root', books.path, '--root', join(desk.path, 'sub')]);
  const planned = await call('plan', { file: join(books.path, 'book.json') });
  expectDone(planned);
  expect(json(planned).steps).toMatchObject([{ action: 'open', side: 'sell', target_usd: 2000 }]);
  // The working directory is no longer a root; a link in a root that leads out is still refused.
  expectRefused(
    await call('plan', { file: 'target.csv' }),
    /is outside the roots this server reads from \(.*books.*\)/,
  );
  expectRefused(await call('plan', { file: join(desk.path, 'sub', 'innocent.csv') }), /through a symbolic link/);

  const missing = await runHedge(['mcp', '--demo', '--root', join(elsewhere.path, 'nope')], {
    configDir: simulator.configDir,
  });
  exits(missing, 2, '--root: ', 'is not a directory');
  expect(missing.stdout).toBe('');

  // The target inline as rows: plan and apply work without any file; bad rows are named by item and column.
  const rows = [
    { ...BUY, notional_usd: 4000, tenor_days: 3, client_reference: 'INLINE-1' },
    { ...SELL, notional_usd: '0' },
  ];
  const inline = await call('plan', { rows });
  expectDone(inline);
  expect(json(inline)).toMatchObject({
    source: 'rows',
    steps: [{ action: 'open', side: 'buy', target_usd: 4000, line: 1, client_reference: 'INLINE-1' }],
  });
  expect(trades(simulator)).toEqual([]);

  expectDone(await call('apply', { rows }));
  expect(simulator.active('buy').map((hedge) => [hedge.notionalUsd, hedge.clientReference])).toEqual([
    [4000, 'INLINE-1'],
  ]);

  const bad = await call('plan', {
    rows: [
      { market: MARKET, side: SECRET, notional_usd: 1000, tenor_days: 3 },
      { ...BUY, notional_usd: SECRET, tenor_days: 9 },
    ],
  });
  expect(json(bad)).toMatchObject({ error: { code: 'usage', argument: 'rows' }, exit_code: 2 });
  const message = json(bad).error.message;
  expect(message).toContain('rows:1: item 1: side: the value is not allowed; expected buy or sell.');
  expect(message).toContain('rows:2: item 2: notional_usd: the value is not allowed');
  expect(message).toContain('rows:2: item 2: tenor_days: the value is not allowed; expected 1, 3 or 7 (days).');
  expectNoSecret(bad);

  expect(json(await call('plan', { file: 'target.csv', rows })).error).toMatchObject({
    argument: 'rows',
    message: 'rows: give the target as a file or as rows, not both.',
  });
  const neither = await call('plan', {});
  expect(json(neither).error).toMatchObject({ argument: 'file' });
  expect(json(neither).error.message).toMatch(
    /^file: missing; expected the path of a target file under the roots this server reads from, or the target inline as rows\.$/,
  );
});

it("hedge mcp: plan and apply read only under the roots: the client's roots are honoured too: a file must be under one of the server's and one of the client's", async () => {
  const simulator = await startSimulator();
  const { call, rootsAsked } = await serve(
    simulator,
    ['--root', desk.path, '--root', books.path],
    [books.path, elsewhere.path],
  );
  expectDone(await call('plan', { file: join(books.path, 'book.json') }));
  // In the server's roots but not the client's.
  expectRefused(await call('plan', { file: 'target.csv' }), /and the client's: .*books/);
  // In the client's roots but not the server's.
  expectRefused(await call('plan', { file: secretsFile }), /is outside the roots/);
  expect(rootsAsked()).toBeGreaterThanOrEqual(3);
  expect(trades(simulator)).toEqual([]);
});

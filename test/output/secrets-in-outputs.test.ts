// Known secrets never leave the process, data included: a server that echoes the API key inside a
// data field (or in an error's message) gets it back redacted in every format, in the HTML report
// and in the journal; `hedge api` refuses a request that would carry the key (a file read whole,
// such as /proc/self/environ) before anything is sent or journaled, a dry run's included. No
// network is mocked: a proxy in front of the simulator plays the echoing server.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { redactKey } from '../../src/core/security/secrets.js';
import { startAnswerProxy, startRewriteProxy } from '../support/servers/field-proxy.js';
import { runHedge, type RunResult } from '../support/hedge-cli.js';
import { useMcpServers } from '../support/mcp.js';
import { journalEntries, exits } from '../support/cli-runs.js';
import { closedAfterEach, envFor, MARKET, useSimulators, type Simulator } from '../support/simulator.js';

const startSimulator = useSimulators();
const startMcp = useMcpServers();
const rewriting = closedAfterEach(startRewriteProxy);
const answering = closedAfterEach(startAnswerProxy);

/** No file under `dir`, read whole, holds `key`: the journal, its segments, the config — whatever hedge wrote. */
function expectNotOnDisk(dir: string, key: string) {
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, name);
    if (statSync(path).isFile()) expect(readFileSync(path, 'utf8'), path).not.toContain(key);
  }
}

/** A simulator whose buy side holds 1,000 USD, and its API key. */
async function holdingBuy() {
  const simulator = await startSimulator();
  simulator.seedOpen('buy', 1_000);
  return { simulator, key: simulator.apiKey };
}

/** Each command line, by name, run in turn against the simulator through `baseUrl` (a proxy), with its key and config dir. */
async function runsThrough(simulator: Simulator, baseUrl: string, lines: Record<string, string>) {
  const runs: Record<string, RunResult> = {};
  for (const [name, line] of Object.entries(lines))
    runs[name] = await runHedge(line, {
      configDir: simulator.configDir,
      env: { ...envFor({ baseUrl, apiKey: simulator.apiKey }), COLUMNS: '200' },
    });
  return runs;
}

it('a key the server echoes in a data field: is redacted on stdout in every format (table, card, tsv, csv, ndjson, --json, --raw), in the HTML report and in a write’s answer', async () => {
  const { simulator, key } = await holdingBuy();
  simulator.sandbox.seedHedges({ apiKey: key, count: 2 });
  // Every object the server answers with carries the key twice: a field of its own, and inside text.
  const proxy = await rewriting(simulator.sandbox, (path, item) => {
    item.echo = key;
    item.note = `issued to ${key} today`;
    if (path === '/hedges/history') item.client_reference = key;
  });
  const html = join(simulator.configDir, 'r.html');
  const runs = await runsThrough(simulator, proxy.baseUrl, {
    table: 'positions --format table --fields side,echo,note',
    card: 'account --format table --fields echo,note',
    tsv: 'hedges --format tsv',
    csv: 'positions --format csv',
    ndjson: 'history --format ndjson',
    json: 'positions --json',
    raw: 'account --json --raw',
    api: 'api /positions',
    report: `report --by ref --html ${html}`,
    add: `add ${MARKET} buy 100 --json`,
  });
  for (const [name, run] of Object.entries(runs)) {
    exits(run, 0);
    expect(run.stdout + run.stderr, name).not.toContain(key);
  }
  // The field is shown, redacted, not dropped: the server's data otherwise as sent.
  for (const name of 'table card tsv csv ndjson json raw api add'.split(' '))
    expect(runs[name].stdout, name).toContain(`issued to ${redactKey(key)} today`);
  expect(JSON.parse(runs.json.stdout)[0]).toMatchObject({ side: 'buy', echo: redactKey(key) });
  expect(readFileSync(html, 'utf8')).not.toContain(key);
  // The add went through: the server acted once, and its answer was printed redacted.
  expect(simulator.sends('/hedges/add')).toHaveLength(1);
});

it('hedge api: a request that would carry the key: -F x=@/proc/self/environ, a dry run or sent for real: refused in one line (exit 2) before it is journaled or sent, the key nowhere; then an error message echoing the key: stderr, --json and the journal hold it redacted, and the row is resolved; then a key the server sends as a field name: is redacted as a name of a position and of error.details: --json, --raw, ndjson, tsv, a table header, hedge api, an error answer and the MCP positions tool', async () => {
  const { simulator, key } = await holdingBuy();
  for (const dry of [['--dry-run'], []]) {
    const run = await simulator.hedge(
      [...'api -X POST /quotes -F x=@/proc/self/environ'.split(' '), ...dry],
      // /proc/self/environ is the environment of the process that reads it: a process of its own.
      { onSpawn: () => {} },
    );
    exits(run, 2);
    expect(run.stdout + run.stderr).not.toContain(key);
    expect(run.stderr).toMatch(
      /^hedge: PATH, -f, -F and --input: the request would carry an API key .*nothing was sent\.\n$/,
    );
  }
  expect(simulator.sandbox.requestLog).toHaveLength(0);
  expectNotOnDisk(simulator.configDir, key);
  expect(await journalEntries(simulator)).toEqual([]);

  simulator.sandbox.setFaults({
    nextError: { count: 2, status: 422, code: 'limit_exceeded', message: `key ${key} may not add today` },
    match: { method: 'POST', path: '/hedges/add' },
  });
  const person = await simulator.hedge(`add ${MARKET} buy 100`);
  const script = await simulator.hedge(`add ${MARKET} buy 200 --json`);
  for (const run of [person, script]) {
    exits(run, 3);
    expect(run.stdout + run.stderr).not.toContain(key);
    expect(run.stdout + run.stderr).toContain(`key ${redactKey(key)} may not add today`);
  }
  expectNotOnDisk(simulator.configDir, key);
  const rows = await journalEntries(simulator);
  expect(rows.map((row) => [row.command, row.outcome, row.message])).toEqual([
    ['add', 'rejected', `key ${redactKey(key)} may not add today`],
    ['add', 'rejected', `key ${redactKey(key)} may not add today`],
  ]);
  expect(simulator.requests('POST', '/hedges/add')).toHaveLength(2);

  // Then a key the server sends as a field name.
  // Each position carries the key as a name (its value innocent); each error answer, as a name in its details.
  const proxy = await answering(simulator.sandbox, (request, envelope) => {
    if (request.path === '/positions' && Array.isArray(envelope.data))
      for (const position of envelope.data as Array<Record<string, unknown>>) position[key] = 'named';
    const error = envelope.error as { details?: Record<string, unknown> } | null | undefined;
    if (error) error.details = { ...error.details, [key]: 'named' };
  });
  const runs = await runsThrough(simulator, proxy.baseUrl, {
    json: 'positions --json',
    raw: 'positions --json --raw',
    ndjson: 'positions --format ndjson',
    tsv: 'positions --format tsv',
    table: `positions --format table --fields side,${key}`,
    api: 'api /positions',
    error: 'hedges hdg_nosuchhedge0000000000000 --json',
  });
  // A table's header is made from the name (words split and recased): the key's secret part, in any case, nowhere.
  const secretPart = key.slice(key.indexOf('_test_') + '_test_'.length).toLowerCase();
  for (const [name, run] of Object.entries(runs)) {
    expect(run.code, `${name}: ${run.stderr}`).toBe(name === 'error' ? 3 : 0);
    expect(run.stdout + run.stderr, name).not.toContain(key);
    expect((run.stdout + run.stderr).toLowerCase(), name).not.toContain(secretPart);
  }
  // The name is shown redacted, not dropped.
  for (const name of ['json', 'raw'])
    expect(JSON.parse(runs[name].stdout), name).toMatchObject([{ [redactKey(key)]: 'named' }]);
  expect(JSON.parse(runs.ndjson.stdout.split('\n')[0])).toMatchObject({ [redactKey(key)]: 'named' });
  expect(runs.tsv.stdout.split('\n')[0]).toContain(redactKey(key));
  expect(runs.table.stdout.split('\n')[0]).toContain(`test…${key.slice(-4).toLowerCase()}`);
  expect(JSON.parse(runs.api.stdout)).toMatchObject({ data: [{ [redactKey(key)]: 'named' }] });
  expect(JSON.parse(runs.error.stderr).error).toMatchObject({
    code: 'hedge_not_found',
    details: { [redactKey(key)]: 'named' },
  });
  const mcp = await startMcp(simulator, { env: { HEDGE_BASE_URL: proxy.baseUrl } });
  const answer = await mcp.call('positions', {});
  const text = answer.content.map((part) => part.text).join('\n');
  expect(answer.isError, text).toBeFalsy();
  expect(text).not.toContain(key);
  expect(JSON.parse(answer.content[0].text)).toMatchObject([{ [redactKey(key)]: 'named' }]);
  expect(await mcp.close()).not.toContain(key);
  expect(simulator.requests('GET', '/positions').length).toBeGreaterThanOrEqual(6);
});

it('hedge api: the key in a header (-H X-Note), in the path or query percent-encoded (once or twice), or in a body escaped so: refused in one line naming where (exit 2), dry run or not, nothing sent or journaled; a header without a secret is shown by --dry-run and recorded in the journal', async () => {
  const { simulator, key } = await holdingBuy();
  const escaped = (text: string) => text.replace(/_/g, '%5F');
  const refusals: Array<[string[], string]> = [
    [['api', '-X', 'POST', '/hedges/close', '-H', `X-Note: ${key}`], '-H X-Note'],
    [['api', '/markets', '-H', `X-Note: see ${escaped(key)}`], '-H X-Note'],
    [['api', `/hedges/${escaped(key)}`], 'PATH, -f, -F and --input'],
    [['api', `/hedges?note=${escaped(escaped(key)).replace(/%/g, '%25')}`], 'PATH, -f, -F and --input'],
    [['api', '-X', 'POST', '/hedges/add', '-f', `note=${escaped(key)}`], 'PATH, -f, -F and --input'],
  ];
  for (const [args, where] of refusals)
    for (const dry of [['--dry-run'], []]) {
      if (dry.length && args[1] !== '-X') continue;
      const run = exits(await simulator.hedge([...args, ...dry]), 2);
      expect(run.stderr, args.join(' ')).toBe(
        `hedge: ${where}: the request would carry an API key (or text shaped like one, escaped or not), which hedge never sends as data; nothing was sent.\n`,
      );
      expect(run.stdout).toBe('');
    }
  expect(simulator.sandbox.requestLog).toHaveLength(0);
  expect(await journalEntries(simulator)).toEqual([]);
  expectNotOnDisk(simulator.configDir, key);

  const close = [
    'api',
    '-X',
    'POST',
    '/hedges/close',
    '-f',
    `market=${MARKET}`,
    '-f',
    'side=buy',
    '-H',
    'X-Desk: blue',
  ];
  const dry = await simulator.hedge([...close, '--dry-run']);
  expect(exits(dry, 0).stdout).toContain('X-Desk: blue');
  expect(simulator.sandbox.requestLog).toHaveLength(0);
  exits(await simulator.hedge(close), 0);
  expect(simulator.sends('/hedges/close')).toHaveLength(1);
  expect(await journalEntries(simulator)).toMatchObject([
    { command: 'api POST /hedges/close', request: { headers: { 'X-Desk': 'blue' } } },
  ]);
});

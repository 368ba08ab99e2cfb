// The agent's file access as data and small cases (the end-to-end ones are in
// test/agent/mcp-roots.test.ts): which roots a server has, the `rows` argument of plan and apply,
// and reads that stop before anything is opened (a file over the size bound).
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentTools, inputSchema, rawInputFor } from '../../src/cli/agent/catalogue.js';
import { FileAccess, MAX_TARGET_FILE_BYTES, clientRootPaths, serverRoots } from '../../src/cli/agent/file-access.js';
import { UsageError } from '../../src/core/errors.js';
import { tempDir } from '../support/hedge-cli.js';
import { COMMANDS } from '../../src/cli/manifest.js';

const tool = (name: string) => agentTools(COMMANDS).find((candidate) => candidate.name === name)!;
const work = tempDir('hedge-file-access-');
afterAll(() => work.remove());
const signal = new AbortController().signal;

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (failure) => failure,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error.message;
}

// The working directory by default: test/agent/mcp-roots.test.ts ("by default the working directory …").
it('roots: none when the working directory is the file system root; each --root must be a directory', async () => {
  expect(await serverRoots([], '/')).toEqual([]);
  // An explicit / is the operator's choice.
  expect((await serverRoots(['/'], work.path)).map((root) => root.path)).toEqual(['/']);
  writeFileSync(join(work.path, 'plain.txt'), 'x');
  expect(await refusal(serverRoots(['plain.txt'], work.path))).toBe(
    '--root: "plain.txt" is not a directory; expected a directory plan and apply may read target files from.',
  );
  // A path the operator must fix is named whole, however deep.
  const deep = join(work.path, 'a folder deep enough to pass any shortening', 'plain.txt');
  expect(await refusal(serverRoots([deep], work.path))).toBe(
    `--root: ${JSON.stringify(deep)} is not a directory; expected a directory plan and apply may read target files from.`,
  );
});

it("roots: the client's roots: file:// URIs become paths, other schemes are dropped", () => {
  expect(clientRootPaths(['file:///home/desk/books', 'https://example.com/x', 'file:///tmp/a%20b'])).toEqual([
    '/home/desk/books',
    '/tmp/a b',
  ]);
});

it('roots: a server without roots reads no file at all, only rows', async () => {
  const source = FileAccess.none().sourceFor(undefined, signal);
  expect(await refusal(source.read(join(work.path, 'plain.txt')))).toMatch(
    /is outside the roots this server reads from \(none: start hedge mcp with --root DIR\)/,
  );
  const inline = FileAccess.none().sourceFor([{ market: 'USDTNGN', side: 'buy', notional_usd: 1 }], signal);
  expect(await inline.read('rows')).toEqual({
    text: '{"targets":[{"market":"USDTNGN","side":"buy","notional_usd":1}]}',
    sourceName: 'rows',
  });
});

it('roots: a file over the bound is refused (a FIFO: mcp-roots.test.ts)', async () => {
  const access = new FileAccess(await serverRoots([work.path], work.path), work.path);
  writeFileSync(join(work.path, 'big.csv'), Buffer.alloc(MAX_TARGET_FILE_BYTES + 1, 'a'));
  expect(await refusal(access.sourceFor(undefined, signal).read('big.csv'))).toBe(
    'file: "big.csv" is larger than 1024 KiB; a target file is a few rows.',
  );
});

it('roots: a target file under the roots that other users may change, or in a folder they may change, is refused with the chmod; made private, it is read', async () => {
  const access = new FileAccess(await serverRoots([work.path], work.path), work.path);
  const file = join(work.path, 'open.csv');
  writeFileSync(file, 'market,side,notional_usd,tenor_days\nUSDTNGN,buy,1000,3\n');
  chmodSync(file, 0o666);
  const read = () => access.sourceFor(undefined, signal).read('open.csv');
  expect(await refusal(read())).toBe(
    `file: "open.csv" cannot be read: other users can change it (mode 0666); run \`chmod go-w ${file}\`.`,
  );
  chmodSync(file, 0o644);
  chmodSync(work.path, 0o777);
  try {
    expect(await refusal(read())).toBe(
      `file: "open.csv" cannot be read: other users can change its folder ${work.path} (mode 0777); run \`chmod go-w ${work.path}\`.`,
    );
  } finally {
    chmodSync(work.path, 0o700);
  }
  expect((await read()).sourceName).toBe('open.csv');
});

it('roots: a client that declares roots but cannot list them grants nothing', async () => {
  const access = new FileAccess(await serverRoots([work.path], work.path), work.path);
  access.useClientRoots(async () => {
    throw new Error('Request timed out');
  });
  expect(await refusal(access.sourceFor(undefined, signal).read('plain.txt'))).toBe(
    'file: the MCP client did not list its roots (Request timed out); nothing was read. Give the target inline as rows.',
  );
});

it('the rows argument of plan and apply: is in the schema beside file, and neither is required on its own', () => {
  for (const name of ['plan', 'apply']) {
    const schema = inputSchema(tool(name), 'direct') as { properties: Record<string, any>; required?: string[] };
    expect(Object.keys(schema.properties).slice(0, 2)).toEqual(['file', 'rows']);
    expect(schema.properties.rows).toMatchObject({
      type: 'array',
      items: { type: 'object', required: ['market', 'side', 'notional_usd'], additionalProperties: false },
    });
    expect(schema.required ?? []).not.toContain('file');
  }
  expect(Object.keys((inputSchema(tool('quote'), 'direct') as { properties: object }).properties)).not.toContain(
    'rows',
  );
});

it('the rows argument of plan and apply: reaches the command as its file, served by the call; rows an array', async () => {
  // A file reaches it as given: test/agent/mcp-roots.test.ts.
  expect(rawInputFor(tool('plan'), { rows: [] })).toEqual({ args: { file: 'rows' }, options: {} });
  expect(await refusal((async () => rawInputFor(tool('apply'), { rows: { market: 'USDTNGN' } }))())).toBe(
    'rows: expected an array of target rows (objects with market, side, notional_usd, tenor_days and optionally client_reference), got an object.',
  );
});

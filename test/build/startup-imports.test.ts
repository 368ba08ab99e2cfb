// What `hedge --version` and `hedge --help` load, checked on the built binary (dist/ is built by the
// global setup): neither may load zod, @inquirer/prompts, ora, undici or conf. Two views:
//   - the bundle: dist/cli.js (the front door) and the chunks it imports statically bundle only
//     commander, import only Node built-ins, and reach everything else through lazy `import()`s of
//     dist/ chunks;
//   - a real run: a loader hook records every file the process loads, and each dist/ file is
//     mapped to the packages bundled in it (esbuild marks each bundled file with a comment). What
//     the launcher answers, and what an environment read at start changes, gets a process of its
//     own; other commands run one after another in a recorded process (loadedInOrder).
// A positive control proves the recording sees lazily imported chunks and their packages.
// Structure only: nothing here measures time (that is `npm run bench`).
import { createServer } from 'node:net';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readStore, writeStore } from '../support/config-store.js';
import { HEDGE_BIN, ROOT, baseEnv, runHedge, tempDir } from '../support/hedge-cli.js';
import { startSimulator, type Simulator } from '../support/simulator.js';
import { run } from './run-process.js';

const DIST = join(ROOT, 'dist');
// @inquirer/prompts itself only re-exports, so its code in a bundle is that of @inquirer/*.
const HEAVY = ['zod', '@inquirer', 'ora', 'undici', 'conf'];
/** Whether a package (or one of a scope) is among these. */
const has = (packages: Set<string>, name: string) => [...packages].some((found) => `${found}/`.startsWith(`${name}/`));
const work = tempDir('hedge-startup-');
afterAll(() => work.remove());

/** A dist/ file's text, the first group of each match of `pattern` in it, and the .js files of dist/. */
const distText = (file: string) => readFileSync(join(DIST, file), 'utf8');
const distMatches = (file: string, pattern: RegExp) => [...distText(file).matchAll(pattern)].map((match) => match[1]);
const distScripts = () => readdirSync(DIST).filter((file) => file.endsWith('.js'));

/** The packages whose files esbuild bundled into a dist/ file, from its `// …/node_modules/x/…` markers. */
const bundledPackages = (file: string) =>
  new Set(distMatches(file, /^\/\/ .*?node_modules\/((?:@[^/\s]+\/)?[^/\s]+)\//gm));

// Records every module the child loads: ES modules through a resolve hook (Node >= 20.6),
// CommonJS ones from require.cache when the process exits.
const hooksFile = join(work.path, 'hooks.mjs');
const registerFile = join(work.path, 'register.mjs');
writeFileSync(
  hooksFile,
  `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(process.env.HEDGE_LOAD_LOG, result.url + '\\n');
  return result;
}
`,
);
writeFileSync(
  registerFile,
  `import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
register(${JSON.stringify(pathToFileURL(hooksFile).href)});
const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  // Node's own modules as loaded, whichever way (an ES import, require or process.getBuiltinModule).
  const natives = process.moduleLoadList.filter((name) => name.startsWith('NativeModule ')).map((name) => 'native:' + name.slice(13));
  appendFileSync(process.env.HEDGE_LOAD_LOG, [...Object.keys(cache), ...natives].join('\\n') + '\\n');
});
`,
);

let runs = 0;
/** `node --import <recorder> script …args`: its code and output, and the lines of its load log. */
async function recorded(script: string, args: string[], env: Record<string, string>) {
  const log = join(work.path, `load-${(runs += 1)}.log`);
  writeFileSync(log, '');
  const output = await run(process.execPath, ['--import', pathToFileURL(registerFile).href, script, ...args], {
    env: { ...baseEnv(work.path), ...env, HEDGE_LOAD_LOG: log },
    cwd: ROOT,
  });
  return { ...output, entries: readFileSync(log, 'utf8').split('\n') };
}

/** A recorded start of bin/hedge.js. */
async function loadedBy(args: string[], env: Record<string, string> = {}) {
  const { entries, ...run } = await recorded(HEDGE_BIN, args, env);
  return { ...run, ...loadsOf(entries) };
}

/**
 * What a process loaded: the dist/ files (by name); the packages bundled into them plus any loaded
 * from node_modules directly; Node built-ins loaded by an ES import (`node:…`: not those taken by
 * process.getBuiltinModule); Node's own modules loaded by any means (process.moduleLoadList).
 */
function loadsOf(entries: readonly string[]) {
  const files = new Set(
    entries.filter(Boolean).map((entry) => (entry.startsWith('file:') ? new URL(entry).pathname : entry)),
  );
  const distFiles = [...files].filter((file) => file.startsWith(`${DIST}/`)).map((file) => file.slice(DIST.length + 1));
  const packages = new Set<string>();
  for (const file of distFiles) for (const name of bundledPackages(file)) packages.add(name);
  for (const file of files) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file);
    if (match) packages.add(match[1]);
  }
  return {
    distFiles: distFiles.sort(),
    packages,
    builtins: [...files].filter((file) => file.startsWith('node:')),
    natives: [...files].filter((file) => file.startsWith('native:')).map((file) => file.slice('native:'.length)),
  };
}

// One recorded process for several commands, one after another: it loads dist/cli.js as
// bin/hedge.js does and runs its main() for each, writing what the process has loaded after each
// (a `#ran` line). What a command did not load is read from all that was loaded up to its end
// (the commands before it included: stricter than its run alone); what it did load, from what
// was new in its run (a module loaded before it would be missed: never passed wrongly).
const driverFile = join(work.path, 'driver.mjs');
writeFileSync(
  driverFile,
  `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
const { main } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'cli.js')).href)});
const cache = createRequire(import.meta.url).cache;
const collect = (stream) => { let text = ''; stream.setEncoding('utf8').on('data', (chunk) => (text += chunk)); return () => text; };
const results = [];
for (const { args, env } of JSON.parse(readFileSync(process.argv[2], 'utf8'))) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  stdin.end('');
  const [out, err] = [collect(stdout), collect(stderr)];
  const code = await main(args, { io: { stdout, stderr, stdin, stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false }, env });
  await new Promise((settled) => setImmediate(settled));
  // Whether a shared object whose path holds HEDGE_DRIVER_MAPPED is open now (a dlopen'ed binding shows there).
  const probe = process.env.HEDGE_DRIVER_MAPPED;
  let mapped;
  try { mapped = probe ? readFileSync('/proc/self/maps', 'utf8').includes(probe) : undefined; } catch {}
  results.push({ code, stdout: out(), stderr: err(), mapped });
  const natives = process.moduleLoadList.filter((name) => name.startsWith('NativeModule ')).map((name) => 'native:' + name.slice(13));
  appendFileSync(process.env.HEDGE_LOAD_LOG, [...Object.keys(cache), ...natives, '#ran'].join('\\n') + '\\n');
}
writeFileSync(process.argv[2], JSON.stringify(results));
`,
);

/**
 * Runs named commands in one recorded process, in order: each run's `env` is main()'s; `processEnv` is
 * added to the process's own (HEDGE_DRIVER_MAPPED names a shared object to look for after each run).
 * Each run, by its name: `mapped`, whether the shared object asked for was open when it ended
 * (Linux only); `added`, what it loaded that no run before it in its process had.
 */
async function loadedInOrder(
  commands: Record<string, { args: string[]; env: Record<string, string> }>,
  processEnv: Record<string, string> = {},
) {
  const spec = join(work.path, `runs-${runs}.json`);
  const names = Object.keys(commands);
  writeFileSync(spec, JSON.stringify(Object.values(commands)));
  const { code, stderr, entries } = await recorded(driverFile, [spec], processEnv);
  expect(code, stderr).toBe(0);
  const results: Array<{ code: number | null; stdout: string; stderr: string; mapped?: boolean }> = JSON.parse(
    readFileSync(spec, 'utf8'),
  );
  const marks = entries.flatMap((entry, at) => (entry === '#ran' ? [at] : []));
  expect(marks).toHaveLength(names.length);
  const named = results.map((result, index) => {
    const before = loadsOf(entries.slice(0, marks[index - 1] ?? 0));
    const upTo = loadsOf(entries.slice(0, marks[index]));
    const added = {
      distFiles: upTo.distFiles.filter((file) => !before.distFiles.includes(file)),
      packages: new Set([...upTo.packages].filter((name) => !before.packages.has(name))),
      natives: upTo.natives.filter((name) => !before.natives.includes(name)),
    };
    return [names[index], { ...result, ...upTo, added }] as const;
  });
  return Object.fromEntries(named);
}

/** dist/cli.js and every chunk it loads as it starts (its static imports of dist/ files, `import … from "./chunk-X.js"`): what `hedge --help` runs. */
const front = new Set<string>();
const visit = (file: string) => {
  if (front.has(file)) return;
  front.add(file);
  distMatches(file, /^import\s[^;]*?from\s*"\.\/([\w.-]+\.js)";/gm).forEach(visit);
};
visit('cli.js');

/** The dist/ chunk that holds a module of src/ (esbuild marks each with `// src/…`). */
function chunkHolding(source: string) {
  const holders = distScripts().filter((file) => distText(file).includes(`\n// ${source}\n`));
  expect(holders, source).toHaveLength(1);
  return holders[0];
}

it('the bundle: keeps the front door (cli.js and the chunks it imports as it starts) to commander and Node built-ins, and reaches each command only through a lazy import of a dist/ chunk; loads no package at run time from any dist/ file (the tarball declares none, so each is bundled); bundles the heavy packages into dist/ chunks (so that the recording below can see them)', () => {
  const packages = new Set([...front].flatMap((file) => [...bundledPackages(file)]));
  expect([...packages]).toEqual(['commander']);
  const lazy = [...front].flatMap((file) => distMatches(file, /\bimport\("\.\/([\w.-]+\.js)"\)/g));
  expect(lazy).toContain(chunkHolding('src/cli/run.ts'));
  expect(lazy).toContain(chunkHolding('src/cli/cmd/book/markets.ts'));
  expect(readdirSync(DIST)).toEqual(expect.arrayContaining(lazy));
  for (const file of lazy) expect(front.has(file), `${file} is loaded lazily, not as the front starts`).toBe(false);
  // Static and lazy imports, and the require() calls left in bundled CommonJS (not those quoted
  // in a package's generated-code strings): of dist/ files and Node built-ins only, the front's
  // built-ins by `node:` only. pg asks for its optional libpq binding inside a try.
  const loads = /(?:^(?:import|export)\s[^;]*?from\s*|\bimport\(|(?<![\w$'"`.])(?:__)?require\()"([^"]+)"/gm;
  const strays = distScripts().flatMap((file) =>
    distMatches(file, loads)
      .filter(
        (name) =>
          !name.startsWith('./') &&
          !name.startsWith('node:') &&
          (front.has(file) || (!builtinModules.includes(name) && name !== 'pg-native')),
      )
      .map((name) => `${file}: ${name}`),
  );
  expect(strays).toEqual([]);
  // The scan sees the loads it checks: the one optional binding is among them.
  expect(distScripts().some((file) => /__require\("pg-native"\)/.test(distText(file)))).toBe(true);
  const all = new Set(distScripts().flatMap((file) => [...bundledPackages(file)]));
  for (const name of HEAVY) expect(has(all, name), name).toBe(true);
});

let many: ReturnType<typeof recordMany> | undefined;
const simulators: Simulator[] = [];
afterAll(async () => {
  for (const simulator of simulators) await simulator.close();
});

/**
 * Commands recorded in two processes (loadedInOrder), each in an order where every check holds: a
 * package a command must not load is loaded by none before it, and one it must load by none
 * before it either. A simulator for the table's runs, one for the request's and one for the
 * stored profile's (the request log of each is that run's alone).
 */
const manyRuns = () => (many ??= recordMany());
async function recordMany() {
  const [tables, requestSimulator, profileSimulator] = await Promise.all(
    [1, 2, 3].map(() => startSimulator({ preset: 'frozen' })),
  );
  simulators.push(tables, requestSimulator, profileSimulator);
  const storedProfile = join(work.path, 'stored-profile');
  const profile = { base_url: profileSimulator.env.HEDGE_BASE_URL, api_key: profileSimulator.env.HEDGE_API_KEY };
  writeStore(storedProfile, { current: 'desk', profiles: { desk: profile, spare: profile } });
  // The first run makes the demo's state (its random id part, a file written): the recorded one reads it.
  const demo = join(work.path, 'demo');
  const demoQuote = '--demo quote USDTNGN buy 10000 --tenor 3 --json';
  expect((await runHedge(demoQuote, { configDir: demo })).code).toBe(0);
  const plain = baseEnv(work.path);
  const command = (line: string, env = plain) => ({ args: line.split(' '), env });
  const table = (format: string) => command(`markets --format ${format}`, { ...plain, ...tables.env });
  const [first, second] = await Promise.all([
    loadedInOrder({
      'quote --help': command('quote --help'),
      'sandbox serve --help': command('sandbox serve --help'),
      exitCodes: command('help exit-codes'),
      marketsWithoutKey: command('markets --json'),
      demoQuote: command(demoQuote, baseEnv(demo)),
      demoOpen: command('--demo open USDTNGN buy 10000 --tenor 3 --yes --json --no-wait', baseEnv(demo)),
      localJournal: command('journal --json'),
      json: table('json'),
      tsv: table('tsv'),
      csv: table('csv'),
      ndjson: table('ndjson'),
      table: table('table'),
      // Nothing listens on port 9 of loopback: the client is loaded and the store refused.
      teamJournal: command('journal --json', { ...plain, HEDGE_JOURNAL_URL: 'postgres://desk@127.0.0.1:9/hedge' }),
    }),
    // In a process of their own: the write loads node:crypto, which the demo's quote must not have.
    loadedInOrder({
      request: command('markets --json', { ...plain, ...requestSimulator.env }),
      profileRead: command('markets --json', baseEnv(storedProfile)),
      profileWrite: command('profile use spare', baseEnv(storedProfile)),
    }),
  ]);
  return { runs: { ...first, ...second }, requestSimulator, profileSimulator, storedProfile, demo };
}

it('what a request loads: `markets --json` against a server sends one GET over node:http, without loading undici or the PostgreSQL client; with its key in a stored profile it reads the store without conf or its lock; a write to the store loads both', async () => {
  const { runs, requestSimulator, profileSimulator, storedProfile } = await manyRuns();
  // The key and URL of the profile's run come from the profile only (no simulator env; baseEnv names neither).
  for (const [ran, simulator] of [
    [runs.request, requestSimulator],
    [runs.profileRead, profileSimulator],
  ] as const) {
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual(expect.arrayContaining([expect.objectContaining({ market: 'USDTNGN' })]));
    expect(simulator.requests('GET', '/markets').map((entry) => entry.status)).toEqual([200]);
  }
  // The first command of its process: all it loaded is what the process loaded.
  const loaded = runs.request;
  // undici is loaded for a request through a proxy only (test/api/tls.test.ts goes through one).
  expect(loaded.packages.has('undici')).toBe(false);
  expect(loaded.packages.has('pg')).toBe(false);
  // node:http is taken by process.getBuiltinModule, never by an ES import: on Node >= 22 that
  // import loads Node's own undici for node:http's WebSocket export (docs/performance.md).
  expect(loaded.builtins).toContain('node:fs'); // the recording sees ES imports of built-ins
  expect(loaded.builtins).not.toContain('node:http');
  expect(loaded.builtins).not.toContain('node:https');
  // The recording sees what the request did load lazily: the answer's schemas (zod).
  expect(loaded.added.packages.has('zod')).toBe(true);
  for (const name of ['conf', 'ajv', 'proper-lockfile']) expect(runs.profileRead.packages.has(name), name).toBe(false);
  // Positive control: a command that writes the store loads conf and the lock, and the write lands.
  const write = runs.profileWrite;
  expect(write.code).toBe(0);
  expect(readStore(storedProfile).current).toBe('spare');
  for (const name of ['conf', 'proper-lockfile']) expect(write.added.packages.has(name), name).toBe(true);
});

it("what the demo loads: `--demo quote` answers over the demo's local socket without loading node:crypto; an open loads it (positive control); it loads zod's English messages only: no other locale and no JSON Schema generator (the agent's)", async () => {
  const { runs, demo } = await manyRuns();
  const quote = runs.demoQuote;
  expect(quote.code).toBe(0);
  expect(JSON.parse(quote.stdout)).toMatchObject({ market: 'USDTNGN', side: 'buy', notional_usd: 10000 });
  expect(quote.natives).toContain('net'); // the recording sees Node's modules however loaded
  expect(quote.natives).not.toContain('crypto');
  const identity = await runHedge('--demo whoami --json', { configDir: demo });
  expect(JSON.parse(identity.stdout).base_url).toBe('http://localhost/partners/sandbox/v2');
  // An open sends an Idempotency-Key (crypto's randomUUID) and the simulator hashes its fingerprint.
  const open = runs.demoOpen;
  expect(open.code, open.stderr).toBe(0);
  expect(open.added.natives).toContain('crypto');
  const zodFiles = quote.distFiles.flatMap((file) => distMatches(file, /^\/\/ .*?node_modules\/zod\/(\S+)$/gm));
  expect(zodFiles).toContain('v4/locales/en.js');
  expect(zodFiles.filter((file) => /locales\/(?!en\.js)|json-schema-generator/.test(file))).toEqual([]);
});

// The version, and the help at 80 columns (a pipe here), are answered by bin/hedge.js before any
// of dist/ is loaded: a process each. The others load dist/cli.js as bin/hedge.js does, first in
// the recorded process (nothing is loaded before them but the front door).
it.each(['--version', '-V', 'quote --help', 'sandbox serve --help'])(
  'a real start: hedge %s loads the front door only',
  async (name) => {
    const launcher = name.startsWith('-');
    const loaded = launcher ? await loadedBy([name]) : (await manyRuns()).runs[name];
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toMatch(/^(\d+\.\d+\.\d+\n|Usage: hedge)/);
    if (launcher) expect(loaded.distFiles).toEqual([]);
    else expect(loaded.distFiles).toContain('cli.js');
    expect(loaded.distFiles.filter((file) => !front.has(file))).toEqual([]);
    for (const heavy of HEAVY) expect(has(loaded.packages, heavy), heavy).toBe(false);
  },
);

it("a real start: the launcher's `hedge --help` (dist/help.txt) loads the front door only, nothing of dist/, and is the front door's at 80 columns; at another width the front door prints it; run by a path (no `hedge` on PATH), `--help` is dist/help.txt under one line naming the path: nothing of dist/ loaded; the PostgreSQL client is loaded only when a team journal store is configured; sees what a command loads lazily (positive control)", async () => {
  // HEDGE_FORCE_TTY=0 keeps the launcher out of it: the same 80 columns, printed by dist/cli.js.
  const launcher = await loadedBy(['--help']);
  expect(launcher.distFiles).toEqual([]);
  for (const heavy of HEAVY) expect(has(launcher.packages, heavy), heavy).toBe(false);
  const front = await loadedBy(['--help'], { HEDGE_FORCE_TTY: '0' });
  const wider = await loadedBy(['--help'], { COLUMNS: '120' });
  expect(front.distFiles).toContain('cli.js');
  expect([launcher.code, front.code, launcher.stdout]).toEqual([0, 0, front.stdout]);
  expect(launcher.stdout).toMatch(/^Usage: hedge <command>/);
  expect([wider.code, wider.distFiles]).toEqual([0, expect.arrayContaining(['cli.js'])]);
  const byPath = await loadedBy(['--help'], { PATH: '/usr/bin:/bin' });
  expect([byPath.code, byPath.distFiles]).toEqual([0, []]);
  expect(byPath.stdout).toBe(`hedge below is ./bin/hedge.js\n${distText('help.txt')}`);
  const { runs } = await manyRuns();
  const local = runs.localJournal;
  expect([local.code, local.stdout, local.packages.has('pg')]).toEqual([0, '[]\n', false]);
  // Positive control: with a store named (nothing listens on port 9 of loopback), the client is loaded and the store refused.
  expect([runs.teamJournal.code, runs.teamJournal.added.packages.has('pg')]).toEqual([13, true]);
  const exitCodes = runs.exitCodes;
  expect(exitCodes.code).toBe(0);
  expect(exitCodes.added.distFiles).toContain(chunkHolding('src/platform/terminal/exit-code-table.ts'));

  // No key anywhere: the command fails on credentials, after loading the runner and zod.
  const markets = runs.marketsWithoutKey;
  expect(markets.code).not.toBe(0);
  expect(markets.added.distFiles).toContain(chunkHolding('src/cli/run.ts'));
  expect(markets.added.packages.has('zod')).toBe(true);
});

it('a real start: the OS keyring (its module and native binding) is loaded only for a profile whose key is in it', async () => {
  // The dist/ file of src/platform/config/os-keyring.ts, found by what it asks the binding for.
  const keyringChunks = distScripts().filter((file) => distText(file).includes('store: "secret-service"'));
  expect(keyringChunks).toHaveLength(1);
  const profileIn = (name: string, profile: Record<string, string>) => {
    const dir = join(work.path, name);
    writeStore(dir, { current: 'd', profiles: { d: { base_url: 'http://127.0.0.1:9/v2', ...profile } } });
    return dir;
  };
  const args = 'positions --json --timeout 2'.split(' ');
  // The keyring profile's "bus" answers the greeting with a refusal, so the binding is loaded and
  // then refused (exit 4, nothing sent). The process has it from its start (as a desk's session
  // does), the key-in-file run first: it loads neither with a bus there.
  const busPath = join(work.path, 'bus.sock');
  const bus = createServer((socket) => socket.once('data', () => socket.end('REJECTED EXTERNAL\r\n'))).listen(busPath);
  const busEnv = { DBUS_SESSION_BUS_ADDRESS: `unix:path=${busPath}` };
  try {
    const { file, keyring } = await loadedInOrder(
      {
        file: { args, env: baseEnv(profileIn('key-in-file', { api_key: 'hpk_test_StartupKeyInTheFile000001' })) },
        keyring: { args, env: { ...baseEnv(profileIn('key-in-keyring', { key_keyring: 'd@startup' })), ...busEnv } },
      },
      { ...busEnv, HEDGE_DRIVER_MAPPED: 'keyring.' },
    );
    // The command ran (the front and its lazily loaded chunks), with its key from the file.
    expect(file.distFiles).toContain('cli.js');
    expect(file.distFiles.length).toBeGreaterThan(1);
    expect(file.distFiles.filter((name) => keyringChunks.includes(name))).toEqual([]);
    // Positive control: a keyring profile loads both (the binding seen open on Linux only).
    expect(keyring.code).toBe(4);
    expect(keyring.added.distFiles).toEqual(expect.arrayContaining(keyringChunks));
    if (process.platform === 'linux') expect([file.mapped, keyring.mapped]).toEqual([false, true]);
  } finally {
    bus.close();
  }
});

it('the table library (cli-table3): is loaded by a table only: --json, tsv, csv and ndjson never load it; is imported by one file of src/ only: the Table', async () => {
  const { runs } = await manyRuns();
  for (const format of ['json', 'tsv', 'csv', 'ndjson'] as const) {
    const loaded = runs[format];
    expect(loaded.code, format).toBe(0);
    expect(loaded.packages.has('cli-table3'), format).toBe(false);
  }
  const table = runs.table;
  expect(table.code).toBe(0);
  // The header's first line, or its second where 80 columns put units under labels.
  expect(table.stdout).toMatch(/^Market +Status/m);
  expect(table.added.packages.has('cli-table3')).toBe(true);
  const importers = readdirSync(join(ROOT, 'src'), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && /['"]cli-table3['"]/.test(readFileSync(join(ROOT, 'src', file), 'utf8')));
  expect(importers).toEqual([join('platform', 'terminal', 'table.ts')]);
});

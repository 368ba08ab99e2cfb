// What each command runs, checked on the built dist/ (built by the global setup): `hedge --version`
// and `hedge --help` run none of zod, @inquirer/prompts, ora, undici or conf, a command runs no module
// of another command, and a command's help runs nothing of what it does not print. Two views:
//   - the bundle: every package is bundled (none is loaded from node_modules at run time), and every
//     Node built-in is taken by `process.getBuiltinModule` when first used, never by an ES import
//     (which would load it as the bundle starts and build a facade of its exports);
//   - a real run: which modules' code ran, from V8's coverage of the process mapped through the
//     bundle's source map (./bundle-coverage.ts), and which of Node's own modules it loaded
//     (process.moduleLoadList). What the launcher answers, and what an environment read at start
//     changes, gets a process of its own; other commands run one after another in a recorded
//     process (loadedInOrder), coverage taken after each.
// A positive control proves the recording sees lazily run modules and their packages.
// Structure only: nothing here measures time (that is `npm run bench`).
import { createServer } from 'node:net';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readStore, writeStore } from '../support/config-store.js';
import { HEDGE_BIN, ROOT, baseEnv, runHedge, tempDir } from '../support/hedge-cli.js';
import { startSimulator, type Simulator } from '../support/simulator.js';
import { coverageFiles, mappedScript, packageOf, sourcesRan } from './bundle-coverage.js';
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
const distScripts = () =>
  readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'));
/** The program: dist/cli.js, which bin/hedge.js loads (reference.js is the build's own, for the manual page). */
const program = mappedScript(join(DIST, 'cli.js'));
/** The packages kept apart (dist/lazy/: their files and the chunks they share), which the program imports lazily. */
const apart = distScripts()
  .filter((file) => file.startsWith('lazy/'))
  .map((file) => mappedScript(join(DIST, file)));
const scripts = [program, ...apart];

/** The command modules (src/cli/cmd/…), each loaded by its command alone: those the manifest's loaders name. */
const COMMAND_MODULES = new Set(
  [
    ...readFileSync(join(ROOT, 'src', 'cli', 'manifest.ts'), 'utf8').matchAll(/import\('\.\/(cmd\/[\w/-]+)\.js'\)/g),
  ].map((match) => `src/cli/${match[1]}.ts`),
);

// Records the files a child loads through ES modules (a resolve hook, Node >= 20.6), the CommonJS
// ones from require.cache and Node's own modules when the process exits.
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
/** `node --import <recorder> script …args` with its coverage written into a folder of its own: its code and output, the lines of its load log and that folder. */
async function recorded(script: string, args: string[], env: Record<string, string>) {
  runs += 1;
  const log = join(work.path, `load-${runs}.log`);
  const coverage = join(work.path, `coverage-${runs}`);
  writeFileSync(log, '');
  mkdirSync(coverage);
  const output = await run(process.execPath, ['--import', pathToFileURL(registerFile).href, script, ...args], {
    env: { ...baseEnv(work.path), ...env, HEDGE_LOAD_LOG: log, NODE_V8_COVERAGE: coverage },
    cwd: ROOT,
  });
  return { ...output, entries: readFileSync(log, 'utf8').split('\n'), coverage };
}

/** A recorded start of bin/hedge.js. */
async function loadedBy(args: string[], env: Record<string, string> = {}) {
  const { entries, coverage, ...run } = await recorded(HEDGE_BIN, args, env);
  const [file] = coverageFiles(coverage);
  return { ...run, ...loadsOf(entries, file === undefined ? new Set() : sourcesRan(scripts, file)) };
}

/**
 * What a process loaded: the dist/ files (by name); the src/ files and packages whose code ran
 * (`ran`: src/ paths and node_modules paths) and those packages, with any loaded from node_modules
 * directly; Node built-ins loaded by an ES import (`node:…`); Node's own modules loaded by any means
 * (process.moduleLoadList).
 */
function loadsOf(entries: readonly string[], ran: Set<string>) {
  const files = new Set(
    entries.filter(Boolean).map((entry) => (entry.startsWith('file:') ? new URL(entry).pathname : entry)),
  );
  const distFiles = [...files].filter((file) => file.startsWith(`${DIST}/`)).map((file) => file.slice(DIST.length + 1));
  const packages = new Set<string>();
  for (const source of [...ran, ...files]) {
    const name = packageOf(source);
    if (name) packages.add(name);
  }
  return {
    distFiles: distFiles.sort(),
    ran,
    packages,
    builtins: [...files].filter((file) => file.startsWith('node:')),
    natives: [...files].filter((file) => file.startsWith('native:')).map((file) => file.slice('native:'.length)),
  };
}

// One recorded process for several commands, one after another: it loads dist/cli.js as
// bin/hedge.js does and runs its main() for each, writing what the process has loaded after each
// (a `#ran` line) and the coverage of that run (the inspector's precise coverage, its counts reset
// as each is taken). What a command did not load is read from all that ran up to its end (the
// commands before it included: stricter than its run alone); what it did load, from what was new
// in its run (a module run before it would be missed: never passed wrongly); which command modules
// it ran, from its run alone.
const driverFile = join(work.path, 'driver.mjs');
writeFileSync(
  driverFile,
  `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
const { main } = await import(${JSON.stringify(pathToFileURL(join(DIST, 'cli.js')).href)});
const cache = createRequire(import.meta.url).cache;
const collect = (stream) => { let text = ''; stream.setEncoding('utf8').on('data', (chunk) => (text += chunk)); return () => text; };
const results = [];
for (const [index, { args, env }] of JSON.parse(readFileSync(process.argv[2], 'utf8')).entries()) {
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
  writeFileSync(process.argv[2] + '.coverage-' + index + '.json', JSON.stringify(await session.post('Profiler.takePreciseCoverage')));
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
 * (Linux only); `added`, what it loaded that no run before it in its process had; `own`, the
 * sources whose code ran in its run.
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
  const own = names.map((_, index) => sourcesRan(scripts, `${spec}.coverage-${index}.json`));
  const union = (upTo: number) => new Set(own.slice(0, upTo).flatMap((sources) => [...sources]));
  const named = results.map((result, index) => {
    const before = loadsOf(entries.slice(0, marks[index - 1] ?? 0), union(index));
    const upTo = loadsOf(entries.slice(0, marks[index]), union(index + 1));
    const added = {
      ran: new Set([...upTo.ran].filter((source) => !before.ran.has(source))),
      packages: new Set([...upTo.packages].filter((name) => !before.packages.has(name))),
      natives: upTo.natives.filter((name) => !before.natives.includes(name)),
    };
    return [names[index], { ...result, ...upTo, added, own: own[index] }] as const;
  });
  return Object.fromEntries(named);
}

/** The command modules whose code a run ran. */
const commandModulesRan = (ran: Set<string>) => [...ran].filter((source) => COMMAND_MODULES.has(source)).sort();

it('the bundle: loads no package at run time (the tarball declares none, so each is bundled) and takes every Node built-in by process.getBuiltinModule, never an ES import; bundles the heavy packages (so that the recording below can see them)', () => {
  // Static and lazy imports, and the require() calls left in bundled CommonJS (not those quoted in
  // a package's generated-code strings): of dist/ files and Node built-ins only, and no ES import of
  // a built-in at all. pg asks for its optional libpq binding inside a try.
  const imports = /(?:(?:^|[;}\s])(?:import|export)\s*[^;"'`]*?from\s*|(?:^|[;}\s])import\s*|\bimport\()"([^"]+)"/gm;
  // A bundled CommonJS package's require() is the bundler's helper, under its minified name in each file: found by its shape.
  const helperOf = (file: string) => /([\w$]+)=\(\w+=>typeof require<"u"\?require:/.exec(distText(file))?.[1];
  const requiresOf = (file: string) =>
    new RegExp(
      `(?<![\\w$'"\`.])(?:require${helperOf(file) ? `|${helperOf(file)!.replace('$', '\\$')}` : ''})\\("([^"]+)"`,
      'g',
    );
  expect(helperOf('cli.js')).toBeDefined();
  const requires = requiresOf('cli.js');
  const strays = distScripts().flatMap((file) => [
    ...distMatches(file, imports)
      .filter((name) => !name.startsWith('./'))
      .map((name) => `${file}: import ${name}`),
    ...distMatches(file, requiresOf(file))
      .filter((name) => !name.startsWith('./') && !name.startsWith('node:') && !builtinModules.includes(name))
      .filter((name) => name !== 'pg-native')
      .map((name) => `${file}: require ${name}`),
  ]);
  expect(strays).toEqual([]);
  // The scan sees the loads it checks: the built-ins taken on first use, the one optional binding.
  expect(distText('cli.js')).toMatch(/getBuiltinModule\("node:crypto"\)/);
  expect(distMatches('cli.js', requires)).toContain('pg-native');
  const all = new Set(scripts.flatMap((script) => script.sources.map(packageOf)).filter((name) => name !== undefined));
  for (const name of HEAVY) expect(has(all, name), name).toBe(true);
  for (const source of COMMAND_MODULES) expect(program.sources, source).toContain(source);
});

it("the packages neither main job runs (a prompt, a spinner, a redrawn screen, a write to the config store, the MCP server) are kept out of dist/cli.js, in dist/lazy/; a main job reads no file of dist/lazy/, a write to the store reads conf's (positive control)", async () => {
  const packagesOf = (of: readonly ReturnType<typeof mappedScript>[]) =>
    new Set(of.flatMap((script) => script.sources.map(packageOf)).filter((name) => name !== undefined));
  const [inProgram, inApart] = [packagesOf([program]), packagesOf(apart)];
  for (const name of ['@inquirer', 'ora', 'log-update', 'conf', '@modelcontextprotocol/sdk'])
    expect([has(inProgram, name), has(inApart, name)], name).toEqual([false, true]);
  const { runs } = await manyRuns();
  // What each process read of dist/ up to the run, the commands before it included.
  expect([runs.request.code, runs.request.distFiles]).toEqual([0, ['cli.js']]);
  expect([runs.demoQuote.code, runs.demoQuote.distFiles]).toEqual([0, ['cli.js']]);
  expect([runs.profileWrite.code, runs.profileWrite.distFiles]).toEqual([0, expect.arrayContaining(['lazy/conf.js'])]);
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
  // node:http is taken by process.getBuiltinModule, never by an ES import (the bundle has none, checked
  // above): on Node >= 22 that import loads Node's own undici for node:http's WebSocket export.
  expect(loaded.natives).toContain('http'); // the recording sees Node's modules however loaded
  expect(loaded.builtins).toContain('node:stream'); // and ES imports of built-ins (the recorder's own)
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

it("what the demo loads: `--demo quote` answers over the demo's local socket without loading node:crypto; an open loads it (positive control); it runs zod's English messages only: no other locale and no JSON Schema generator (the agent's)", async () => {
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
  const zodFiles = [...quote.ran].flatMap((source) => /node_modules\/zod\/(\S+)$/.exec(source)?.[1] ?? []);
  expect(zodFiles).toContain('v4/locales/en.js');
  // locales/index.js is the namespace of them all: asking it for `en` runs its getter only.
  expect(zodFiles.filter((file) => /locales\/(?!en\.js|index\.js)|json-schema-generator/.test(file))).toEqual([]);
});

/**
 * What a command's help may run: the parser and the help's own text (commander, src/cli's front door,
 * the specs, src/core's names and words, the terminal's width). Nothing that runs a command: no
 * command module, runner, feature, client, journal, result card or simulator.
 */
const HELP_RUNS =
  /^(?:node_modules\/commander\/|src\/cli\/(?:main|help|globals|manifest|nearest-option|cmd\/specs|runner\/command-spec)\.ts$|src\/core\/|src\/platform\/terminal\/(?:terminal|width)\.ts$|src\/sandbox\/dialect-names\.ts$|package\.json$|node-builtin:)/;

// The version, and the help at 80 columns (a pipe here), are answered by bin/hedge.js before any
// of dist/ is loaded: a process each. The others load dist/cli.js as bin/hedge.js does, first in
// the recorded process (nothing has run before them).
it.each(['--version', '-V', 'quote --help', 'sandbox serve --help'])(
  'a real start: hedge %s runs nothing it does not print',
  async (name) => {
    const launcher = name.startsWith('-');
    const loaded = launcher ? await loadedBy([name]) : (await manyRuns()).runs[name];
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toMatch(/^(\d+\.\d+\.\d+\n|Usage: hedge)/);
    if (launcher) expect([loaded.distFiles, [...loaded.ran]]).toEqual([[], []]);
    else expect(loaded.ran).toContain('src/cli/help.ts');
    expect([...loaded.ran].filter((source) => !HELP_RUNS.test(source))).toEqual([]);
    for (const heavy of HEAVY) expect(has(loaded.packages, heavy), heavy).toBe(false);
  },
);

it('a command runs no module of another command: each run ran its own command module only (the modules the manifest loads lazily), and a command that needs none of the runner runs none of it', async () => {
  const { runs } = await manyRuns();
  const own: Record<string, string[]> = {
    demoQuote: ['src/cli/cmd/trade/quote.ts'],
    // The open wizard, when the user picks adding to a hedge, goes on as `hedge add` does (change.ts's sendChange).
    demoOpen: ['src/cli/cmd/trade/change.ts', 'src/cli/cmd/trade/open.ts'],
    localJournal: ['src/cli/cmd/journal/journal-list.ts'],
    json: ['src/cli/cmd/book/markets.ts'],
    table: ['src/cli/cmd/book/markets.ts'],
    request: ['src/cli/cmd/book/markets.ts'],
    profileRead: ['src/cli/cmd/book/markets.ts'],
    profileWrite: ['src/cli/cmd/setup/profile-use.ts'],
    'quote --help': [],
    exitCodes: [],
  };
  for (const [name, modules] of Object.entries(own)) {
    expect(runs[name].code, name).toBe(0);
    expect(commandModulesRan(runs[name].own), name).toEqual(modules);
  }
  // The recording sees a command's module run lazily, by the command alone (positive control above), and a
  // usage problem runs the runner's reporter without any command module.
  expect(commandModulesRan(runs.marketsWithoutKey.own)).toEqual(['src/cli/cmd/book/markets.ts']);
  expect(runs.exitCodes.own).not.toContain('src/cli/run.ts');
});

it('the one table of card drawers runs only for a command that shows a card: an open runs it (positive control), a quote and markets none of it', async () => {
  const { runs } = await manyRuns();
  const table = 'src/platform/results/cards.ts';
  expect(runs.demoOpen.own).toContain(table);
  for (const name of ['demoQuote', 'marketsWithoutKey', 'json', 'table'])
    expect(runs[name].own, name).not.toContain(table);
});

it("a real start: the launcher's `hedge --help` (dist/help.txt) runs nothing of dist/, and is the front door's at 80 columns; at another width the front door prints it; run by a path (no `hedge` on PATH), `--help` is dist/help.txt under one line naming the path: nothing of dist/ loaded; the PostgreSQL client is loaded only when a team journal store is configured; sees what a command loads lazily (positive control)", async () => {
  // HEDGE_FORCE_TTY=0 keeps the launcher out of it: the same 80 columns, printed by dist/cli.js.
  const launcher = await loadedBy(['--help']);
  expect([launcher.distFiles, [...launcher.ran]]).toEqual([[], []]);
  for (const heavy of HEAVY) expect(has(launcher.packages, heavy), heavy).toBe(false);
  const front = await loadedBy(['--help'], { HEDGE_FORCE_TTY: '0' });
  const wider = await loadedBy(['--help'], { COLUMNS: '120' });
  expect(front.distFiles).toContain('cli.js');
  expect([...front.ran].filter((source) => !HELP_RUNS.test(source))).toEqual([]);
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
  expect(exitCodes.added.ran).toContain('src/platform/terminal/exit-code-table.ts');

  // No key anywhere: the command fails on credentials, after running the runner and zod.
  const markets = runs.marketsWithoutKey;
  expect(markets.code).not.toBe(0);
  expect(markets.added.ran).toContain('src/cli/run.ts');
  expect(markets.added.packages.has('zod')).toBe(true);
});

it('a real start: the OS keyring (its module and native binding) is loaded only for a profile whose key is in it', async () => {
  const keyringModule = 'src/platform/config/os-keyring.ts';
  expect(program.sources).toContain(keyringModule);
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
    // The command ran (its module and the client), with its key from the file.
    expect(file.ran).toContain('src/cli/cmd/book/positions.ts');
    expect(file.ran).toContain('src/platform/config/credentials.ts');
    expect(file.ran).not.toContain(keyringModule);
    // Positive control: a keyring profile runs both (the binding seen open on Linux only).
    expect(keyring.code).toBe(4);
    expect(keyring.added.ran).toContain(keyringModule);
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

// The shipped bundle (dist/: one script, minified, each Node built-in taken on first use) prints what
// the plain build of the same src/ prints: esbuild split at each import(), nothing minified, the
// built-ins imported as ES modules. Every command's help, and the runs below against a frozen
// simulator of each build's own (the same seed, clock and book), compared byte for byte apart from
// the times a run reads from its own clock. A minifier that renames what a message shows (a class's
// name), or a built-in taken differently, fails here.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { esbuildOptions } from '../../scripts/esbuild-options.mjs';
import { COMMANDS } from '../../src/cli/manifest.js';
import type { CommandSpec } from '../../src/cli/runner/command-spec.js';
import { ROOT, baseEnv, tempDir } from '../support/hedge-cli.js';
import { seedReadBook, startSimulator, useSimulators } from '../support/simulator.js';
import { run } from './run-process.js';

const work = tempDir('hedge-bundle-output-');
afterAll(() => work.remove());
useSimulators();

/** The plain build of src/ into `root`/dist, beside the shipped one's generated files (help, completions). */
async function plainBuild(root: string) {
  const out = join(root, 'dist');
  const options = esbuildOptions(out, { apart: false });
  await build({
    ...options,
    splitting: true,
    minify: false,
    keepNames: false,
    chunkNames: 'chunk-[hash]',
    sourcemap: false,
    banner: {
      js: "import { createRequire as __hedgeRequire } from 'node:module'; const require = __hedgeRequire(import.meta.url);",
    },
    plugins: options.plugins.filter((plugin: { name: string }) => plugin.name !== 'builtins-on-first-use'),
  });
  for (const file of ['help.txt', 'completions', 'hedge.1'])
    cpSync(join(ROOT, 'dist', file), join(out, file), { recursive: true });
  return join(out, 'cli.js');
}

/** Every command's words (`profile use`), from the tree the front door parses. */
const commandPaths = (specs: readonly CommandSpec[], above: string[] = []): string[][] =>
  specs.flatMap((spec) => [[...above, spec.name], ...commandPaths(spec.subcommands ?? [], [...above, spec.name])]);

// One process per build runs main() for each command line in turn, its output collected.
const driver = join(work.path, 'driver.mjs');
writeFileSync(
  driver,
  `import { readFileSync, writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
const { main } = await import(process.argv[2]);
const collect = (stream) => { let text = ''; stream.setEncoding('utf8').on('data', (chunk) => (text += chunk)); return () => text; };
const results = [];
for (const { args, env } of JSON.parse(readFileSync(process.argv[3], 'utf8'))) {
  const [stdout, stderr, stdin] = [new PassThrough(), new PassThrough(), new PassThrough()];
  stdin.end('');
  const [out, err] = [collect(stdout), collect(stderr)];
  const code = await main(args, { io: { stdout, stderr, stdin, stdoutIsTTY: env.HEDGE_FORCE_TTY === '1', stderrIsTTY: false, stdinIsTTY: false }, env });
  await new Promise((settled) => setImmediate(settled));
  results.push({ args: args.join(' '), code, stdout: out(), stderr: err() });
}
writeFileSync(process.argv[3], JSON.stringify(results));
`,
);

/** The command lines, each build against a frozen simulator of its own with the same book. */
async function outputsOf(cli: string, name: string) {
  const simulator = await startSimulator({ preset: 'frozen' });
  await seedReadBook(simulator);
  const config = join(work.path, `config-${name}`);
  mkdirSync(config);
  const plain = { ...baseEnv(config), COLUMNS: '100' };
  const served = { ...plain, ...simulator.env };
  const lines: Array<[string, Record<string, string>]> = [
    ...commandPaths(COMMANDS).map((words): [string, Record<string, string>] => [`${words.join(' ')} --help`, plain]),
    ['--help', plain],
    ['', plain],
    ['help exit-codes', plain],
    ['completion bash', plain],
    ['markets', { ...served, HEDGE_FORCE_TTY: '1' }],
    ['markets --json', served],
    ['markets --format csv', served],
    ['price USDTNGN buy 10000 --tenor 3', served],
    ['quote USDTNGN buy 10000 --tenor 3', served],
    ['quote USDTNGN buy 10000 --tenor 3 --json', served],
    ['positions', { ...served, HEDGE_FORCE_TTY: '1' }],
    ['hedges --json', served],
    ['history', served],
    ['account --json', served],
    ['maturities', served],
    ['whoami --json', served],
    ['open USDTNGN sell 10000 --tenor 3 --yes --json --no-wait', served],
    // Bad input and a server's refusal: one line each, the same exit codes.
    ['quote USDTNGN hold 10000 --tenor 3', served],
    ['quote USDTNGN buy 10000 --tenor 3 --no-such-option', served],
    ['markets --json', { ...served, HEDGE_API_KEY: 'hpk_test_NotAKeyTheServerKnows00001' }],
    ['--demo quote USDTNGN buy 10000 --tenor 3 --json', plain],
  ];
  const spec = join(work.path, `runs-${name}.json`);
  writeFileSync(spec, JSON.stringify(lines.map(([line, env]) => ({ args: line.split(' ').filter(Boolean), env }))));
  // The simulator (and its folder) is done with once the runs are: stopped whatever they did.
  const ran = await run(process.execPath, [driver, pathToFileURL(cli).href, spec], { cwd: work.path }).finally(
    simulator.close,
  );
  expect(ran.code, ran.stderr).toBe(0);
  const results: Array<{ args: string; code: number; stdout: string; stderr: string }> = JSON.parse(
    readFileSync(spec, 'utf8'),
  );
  // What differs between two runs of one build too: the times read from the run's own clock, the
  // random ids (the demo's, an Idempotency-Key), and the config folder's and the server's names.
  const server = new URL(simulator.env.HEDGE_BASE_URL).host;
  const masked = (text: string) =>
    text
      .replaceAll(config, '<config>')
      .replaceAll(server, '<server>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, '<time>')
      .replace(/("\w+_ms"): \d+/g, '$1: <time>')
      .replace(/\b(?:hdg|qt|req|act|a)_[\w-]+/g, '<id>')
      .replace(/\b[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}\b/g, '<uuid>');
  // The demo's prices move with the real clock (its simulator is in-process): masked there only.
  const prices = (text: string, demo: boolean) =>
    demo ? text.replace(/("\w*price\w*"): [\d.]+/g, '$1: <price>') : text;
  return results.map((result) => {
    const demo = result.args.startsWith('--demo');
    return { ...result, stdout: prices(masked(result.stdout), demo), stderr: prices(masked(result.stderr), demo) };
  });
}

it("prints, for every command's help and each run against a frozen simulator, exactly what the plain build of the same src/ prints", async () => {
  const plainCli = await plainBuild(join(work.path, 'plain'));
  const [shipped, plain] = await Promise.all([
    outputsOf(join(ROOT, 'dist', 'cli.js'), 'shipped'),
    outputsOf(plainCli, 'plain'),
  ]);
  expect(shipped.map((result) => result.args)).toEqual(plain.map((result) => result.args));
  // The runs did what they say: help printed, a table drawn, bad input refused with 2.
  const byLine = Object.fromEntries(shipped.map((result) => [result.args, result]));
  expect(byLine['quote --help'].stdout).toMatch(/^Usage: hedge quote/);
  expect(byLine.markets.stdout).toMatch(/USDTNGN/);
  expect(byLine['quote USDTNGN hold 10000 --tenor 3'].code).toBe(2);
  expect(
    byLine['open USDTNGN sell 10000 --tenor 3 --yes --json --no-wait'].code,
    byLine['open USDTNGN sell 10000 --tenor 3 --yes --json --no-wait'].stderr,
  ).toBe(0);
  for (const [index, result] of shipped.entries()) expect(result, result.args).toEqual(plain[index]);
});

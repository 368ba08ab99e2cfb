// `hedge … | head`: the reader closing the pipe early is not an error.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { exits, journalEntries } from '../support/cli-runs.js';
import { baseEnv, HEDGE_BIN } from '../support/hedge-cli.js';
import { useSimulators, type Simulator } from '../support/simulator.js';

/** Runs the real binary against a simulator with stdout or stderr closed by its reader at once. */
async function runWithClosed(stream: 'stdout' | 'stderr', args: string[], { env, configDir }: Simulator) {
  const child = spawn(process.execPath, [HEDGE_BIN, ...args], {
    env: { ...baseEnv(configDir), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child[stream].destroy();
  let other = '';
  (stream === 'stdout' ? child.stderr : child.stdout).setEncoding('utf8').on('data', (chunk) => (other += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, other };
}

const start = useSimulators();

/** A run that ended 0 with no EPIPE and no stack trace on its other stream. */
const quietly = (result: { code: number | null; other: string }) => {
  expect(result.other).not.toMatch(/EPIPE|at .*\(/);
  exits(result, 0);
};

it('HEDGE_FORCE_TTY: yes, true or 2 (neither 1 nor 0) is refused with one line naming it, before any request: a pipe would get TSV where a table was asked for', async () => {
  const simulator = await start();
  for (const value of ['yes', 'true', '2']) {
    const result = exits(await simulator.hedge('positions', { env: { HEDGE_FORCE_TTY: value } }), 2);
    expect([result.stdout, result.stderr]).toEqual([
      '',
      `hedge: HEDGE_FORCE_TTY: "${value}" is not allowed; expected 1 (the table output even in a pipe) or 0 (plain).\n`,
    ]);
  }
  expect(simulator.requests()).toEqual([]);
});

it('exits 0 without a stack trace when stdout is closed early (--help); a closed stream never changes what happened: a closed stderr keeps the exit code (a refusal is still 3, its answer still on stdout); a closed stdout ends a read quietly with 0, a --watch included (it stops instead of redrawing for nobody), and does not cut a write short: the close lands, is journaled done, and exits 0', async () => {
  const simulator = await start();
  quietly(await runWithClosed('stdout', ['--help'], simulator));
  const result = await runWithClosed('stderr', ['api', '/hedges/hdg_missing', '--json'], simulator);
  expect([
    simulator.requests('GET', '/hedges/hdg_missing').map((entry) => entry.status),
    JSON.parse(result.other).error.code,
  ]).toEqual([[404], 'hedge_not_found']);
  exits(result, 3);
  const hedge = simulator.seedOpen('buy', 10_000);
  const listed = await runWithClosed('stdout', ['history', '--json'], simulator);
  expect(listed.other).not.toMatch(/error/i);
  quietly(listed);
  quietly(await runWithClosed('stdout', ['positions', '--watch', '1', '--json'], simulator));
  expect(simulator.requests('GET', '/positions').length).toBeGreaterThanOrEqual(1);
  quietly(await runWithClosed('stdout', ['close', 'USDTNGN', 'buy', '--json'], simulator));
  expect(simulator.hedges().find((entry) => entry.id === hedge.id)!.status).toBe('closed');
  expect((await journalEntries(simulator)).find((entry) => entry.command === 'close')?.outcome).toBe('done');
});

/** Runs the real binary against a simulator with stdout a full disk (/dev/full: every write fails with ENOSPC). */
async function runIntoFullDisk(args: string[], { env, configDir }: Simulator) {
  const full = openSync('/dev/full', 'w');
  onTestFinished(() => closeSync(full));
  const child = spawn(process.execPath, [HEDGE_BIN, ...args], {
    env: { ...baseEnv(configDir), ...env },
    stdio: ['ignore', full, 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stderr };
}

it.runIf(existsSync('/dev/full'))(
  'stdout a full disk (> /dev/full, ENOSPC): a landed add keeps its outcome (exit 0, journaled done) and says in one line that its output was lost; a read says so and exits 1; never a stack trace',
  async () => {
    const simulator = await start();
    simulator.seedOpen('buy', 10_000);
    for (const args of [
      ['add', 'USDTNGN', 'buy', '500'],
      ['add', 'USDTNGN', 'buy', '700', '--json'],
    ]) {
      const result = await runIntoFullDisk(args, simulator);
      expect(result.stderr, args.join(' ')).not.toMatch(/\n\s+at |unexpected failure/);
      expect(result.stderr).toContain(
        'hedge: stdout could not be written (ENOSPC: no space left on the disk); what the command did is its exit code',
      );
      exits(result, 0);
    }
    expect(simulator.requests('POST', '/hedges/add').map((entry) => entry.status)).toEqual([200, 200]);
    expect((await journalEntries(simulator)).map((entry) => entry.outcome)).toEqual(['done', 'done']);
    const read = await runIntoFullDisk(['markets', '--json'], simulator);
    expect(read.stderr).not.toMatch(/\n\s+at |unexpected failure/);
    expect(read.stderr).toContain('hedge: stdout could not be written (ENOSPC: no space left on the disk)');
    exits(read, 1);
  },
);

// Bad input on the read commands (every argument's refusal: reliability/bad-input.test.ts): one JSON
// line under --json, an unlisted market named, a journal URL that does not parse. And the
// input files of plan, apply, keep and exposures: a regular file of at most 4 MiB, a
// FIFO or a device refused at once, at most 20 problem lines, a JSON key written twice refused, and
// a read of stdin that never ends stopped by SIGTERM or --timeout.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HEDGE_BIN, ROOT, baseEnv, type RunResult } from '../support/hedge-cli.js';
import { until } from '../support/polling.js';
import { hasTool } from '../support/servers/tools.js';
import { startSimulator, type Simulator } from '../support/simulator.js';
import { exits } from '../support/cli-runs.js';

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ preset: 'frozen' });
});
afterAll(() => simulator?.close());
const hedge: Simulator['hedge'] = (...args) => simulator.hedge(...args);

it('bad input on the read commands: an unlisted market names the listed ones (quote: quote-requests.test.ts)', async () => {
  const before = simulator.requests().length;
  const result = exits(await hedge('price EURNGN'), 2);
  expect([
    [result.stdout, result.stderr],
    simulator
      .requests()
      .slice(before)
      .map((entry) => `${entry.method} ${entry.path}`),
  ]).toEqual([['', 'hedge: market: "EURNGN" is not listed for this account; listed: USDTNGN.\n'], ['GET /markets']]);
});

it('bad input on the read commands: a journal URL that does not parse (a password with /) is exit 2 in one line, the password not shown', async () => {
  const password = 'Zk/Wq9vTr8Lm';
  for (const args of [['journal'], ['journal', '--json']]) {
    const result = exits(
      await hedge(args, {
        env: { HEDGE_JOURNAL_URL: `postgres://desk:${password}@127.0.0.1:9/hedge` },
      }),
      2,
    );
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(
      'HEDGE_JOURNAL_URL: postgres://… (not a URL) cannot be used: it does not parse as a URL;',
    );
    for (const piece of 'Zk/W Wq9v vTr8 Tr8L r8Lm'.split(' '))
      expect(`${result.stdout}${result.stderr}`).not.toContain(piece);
  }
});

/**
 * hedge with its stdin held open and never written (a pipe whose writer went quiet), --verbose so
 * that it says when it starts reading; `stop()` ends it if the test did not see it end.
 */
function runOnOpenStdin(args: string[]) {
  const child = spawn(process.execPath, [HEDGE_BIN, ...args, '--verbose'], {
    env: { ...baseEnv(simulator.configDir), ...simulator.env },
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const result = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, durationMs: 0 }));
  });
  return {
    child,
    result,
    stderr: () => stderr,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      child.stdin.destroy();
    },
  };
}

describe('input files are bounded', () => {
  /** The files of these runs, in the simulator's config folder. */
  const at = (name: string) => join(simulator.configDir, name);
  const exposuresCsv = () => at('exposures.csv');
  beforeAll(() =>
    writeFileSync(exposuresCsv(), 'id,market,type,amount,currency,due\nINV-1,USDTNGN,receivable,1000,NGN,2027-01-15\n'),
  );
  // None of these runs sends anything.
  let sent = 0;
  beforeEach(() => (sent = simulator.requests().length));
  afterEach(() => expect(simulator.requests().slice(sent)).toEqual([]));

  /** Each run: exit 2, one line on stderr matching, stdout empty. */
  async function expectRefused(runs: Array<[string[], RegExp]>) {
    // One at a time, each bounded: the old reader hung on a FIFO.
    for (const [args, expected] of runs) {
      const result = await hedge(args, { timeoutMs: 10_000 });
      const where = `hedge ${args.join(' ')}\n${result.stderr}`;
      expect(result.code, where).toBe(2);
      expect(result.stdout, where).toBe('');
      expect(result.stderr.trimEnd().split('\n'), where).toHaveLength(1);
      expect(result.stderr.trimEnd(), where).toMatch(expected);
    }
  }

  it.skipIf(!hasTool('mkfifo'))(
    'plan, apply, exposures, a policy file and keep --once: a FIFO is refused at once, exit 2 (mkfifo is needed)',
    async () => {
      const fifo = at('book.fifo');
      execFileSync('mkfifo', [fifo]);
      const notRegular = (what: string) =>
        new RegExp(
          `^hedge: cannot read the ${what} ${fifo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: it is a FIFO \\(named pipe\\), not a regular file; expected a regular file`,
        );
      await expectRefused([
        [['plan', fifo], notRegular('target file')],
        [['apply', fifo, '--yes'], notRegular('target file')],
        [['exposures', fifo], notRegular('exposures file')],
        [['exposures', exposuresCsv(), '--policy', fifo], notRegular('policy file')],
        [['keep', fifo, '--once'], notRegular('target file')],
        [['keep', fifo, '--exposures', '--once'], notRegular('exposures file')],
      ]);
    },
  );

  it.skipIf(!existsSync('/dev/zero'))('a device is refused without reading it (/dev/zero never ends)', async () => {
    await expectRefused([
      [['plan', '/dev/zero'], /^hedge: cannot read the target file \/dev\/zero: it is a device, not a regular file;/],
      [
        ['exposures', '/dev/zero'],
        /^hedge: cannot read the exposures file \/dev\/zero: it is a device, not a regular file;/,
      ],
    ]);
  });

  // The target file and stdin past 4 MiB, in the same words: input-file.test.ts (readInputFile at the CLI: bounded).
  it('a file over 4 MiB is refused before it is read (a sparse 64 GiB file answers at once)', async () => {
    const huge = at('huge.csv');
    writeFileSync(huge, '');
    truncateSync(huge, 2 ** 36);
    await expectRefused([
      [
        ['exposures', huge],
        /^hedge: cannot read the exposures file .*huge\.csv: it holds more than 4 MiB, the most an input file may hold; split it, or keep the rows that matter\.$/,
      ],
    ]);
  });

  it('30 bad rows: the count of all, the first 20 lines, then how many more — on a terminal and under --json', async () => {
    const bad = at('bad.csv');
    writeFileSync(bad, `market,side,notional_usd,tenor_days\n${'USDTNGN,hold,1000,3\n'.repeat(30)}`);
    expect(
      exits(await hedge(`plan ${bad}`), 2)
        .stderr.trimEnd()
        .split('\n'),
    ).toEqual([
      `hedge: ${bad}: 30 problems; nothing was read or sent.`,
      ...Array.from(
        { length: 20 },
        (_, index) => `${bad}:${index + 2}: side: the value is not allowed; expected buy or sell.`,
      ),
      '… and 10 more problems',
    ]);
    const message = JSON.parse(exits(await hedge(`plan ${bad} --json`), 2).stderr).error.message;
    expect(message.split('\n')).toHaveLength(22);
    expect(message.split('\n').at(-1)).toBe('… and 10 more problems');
  });

  it('a JSON key written twice is refused, named with its item (JSON.parse would keep the last: 99,999)', async () => {
    const target = at('twice.json');
    writeFileSync(
      target,
      '[{"market":"USDTNGN","side":"buy","notional_usd":1000,"notional_usd":99999,"tenor_days":3}]',
    );
    const exposures = at('twice-exposures.json');
    writeFileSync(
      exposures,
      '{"exposures":[{"id":"INV-1","market":"USDTNGN","type":"receivable","amount":"1000","currency":"NGN","due":"2027-01-15"}],"exposures":[]}',
    );
    const policy = at('twice-policy.json');
    writeFileSync(policy, '{"band_pct":5,"band_pct":40}');
    expect(
      exits(await hedge(`plan ${target}`), 2)
        .stderr.trimEnd()
        .split('\n'),
    ).toEqual([
      `hedge: ${target}: 1 problem; nothing was read or sent.`,
      `${target}:1: item 1: the key notional_usd appears more than once (line 1, column 55); each key may appear once (JSON would keep only the last).`,
    ]);
    exits(
      await hedge(`exposures ${exposures}`),
      2,
      `${exposures}: the key exposures appears more than once in one object (line 1, column 122); each key may appear once`,
    );
    await expectRefused([
      [
        ['exposures', exposuresCsv(), '--policy', policy],
        /^hedge: --policy .*twice-policy\.json: the key band_pct appears more than once in one object \(line 1, column 15\); each key may appear once \(JSON would keep only the last\)\.$/,
      ],
    ]);
    // A CSV header naming a column twice was refused already (csv-parse gives rows as arrays); it stays so.
    exits(
      await hedge('plan -', { input: 'market,side,notional_usd,notional_usd,tenor_days\nUSDTNGN,buy,1000,99999,3\n' }),
      2,
      'stdin:1: column notional_usd appears more than once.',
    );
  });

  it.each([
    ['plan', ['plan', '-'], 'target file'],
    ['exposures', ['exposures', '-'], 'exposures file'],
    ['keep --once (a keeper takes SIGTERM itself once it runs)', ['keep', '-', '--once'], 'target file'],
  ])(
    '%s: SIGTERM while stdin is held open and empty ends the read at once, exit 143, nothing sent',
    async (_name, args, what) => {
      const run = runOnOpenStdin(args);
      try {
        await until(
          () => run.stderr().includes(`reading the ${what} from stdin (at most 4 MiB)`),
          'the read of stdin to begin',
          { process: run.result },
        );
        run.child.kill('SIGTERM');
        const result = exits(await run.result, 143);
        expect(result.stderr).toContain(`Interrupted while reading the ${what} on stdin; nothing was sent.`);
        expect(result.stdout).toBe('');
      } finally {
        run.stop();
      }
    },
  );

  it('--timeout ends a read of stdin that never ends: exit 2, one line naming the bound, nothing sent', async () => {
    const run = runOnOpenStdin('plan - --timeout 1'.split(' '));
    try {
      await until(() => run.child.exitCode !== null || run.child.signalCode !== null, 'hedge to end at its --timeout');
      const result = exits(await run.result, 2);
      expect(
        result.stderr
          .trimEnd()
          .split('\n')
          .filter((line) => line.startsWith('hedge:')),
      ).toEqual([
        'hedge: the target file on stdin was not read whole within --timeout (1 s); nothing was read or sent. Close the pipe once the file is written, or give a longer --timeout (0 for none).',
      ]);
    } finally {
      run.stop();
    }
  });
});

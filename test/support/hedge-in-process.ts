// Runs a hedge command inside the test process: the built front (dist/cli.js) and its main(), the
// function bin/hedge.js calls, with the run's own streams, stdin and environment. Loaded once per
// test file instead of once per run: a spawned run costs ~250 ms of CPU to start Node and load
// dist/ (Node 20 has no compile cache), and those runs made most of the suite's time
// (docs/performance.md#the-test-suites-time).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';

interface Front {
  main(
    argv: string[],
    overrides: { io: unknown; env: Record<string, string | undefined>; now?: () => number; script?: string },
  ): Promise<number>;
}

let front: Promise<Front> | undefined;

// Loaded by Node itself (require of an ES module, Node >= 20.19), out of the test runner's module
// loader: that one would transform dist/ and every lazy chunk it loads instead of running the
// bundle as bin/hedge.js does.
const nodeRequire = createRequire(import.meta.url);

// A spawned run gets TZ=UTC (hedge-cli.ts's baseEnv); where hedge shows local time without being
// given a zone (the quote card's "local" line), it reads the process's zone: this one's, made the same.
process.env.TZ = 'UTC';

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A pipe that keeps what is written to it, as a spawned run's stdout and stderr are. */
function collector() {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk) => (text += chunk));
  return { stream, text: () => text };
}

/** The built front's main(), loaded once: for a run given streams of its own (an MCP server's stdio). */
export async function builtMain(root: string): Promise<Front['main']> {
  front ??= Promise.resolve().then(() => nodeRequire(join(root, 'dist', 'cli.js')) as Front);
  return (await front).main;
}

/** A terminal's size: stdout and stderr are then one stream, as on a terminal, that reports it. */
export interface ScreenSize {
  columns: number;
  rows: number;
}

/**
 * `now`: the time hedge reads instead of Date.now (a spawned run pins it with a preload). `screen`:
 * stdout and stderr are one stream, so that what both write reads in the order a terminal shows it
 * (in `stdout`); it has the terminal's `columns` and `rows`, which a library drawing on a terminal
 * (log-update under --watch) reads from the stream itself. `script`: the launcher's path as
 * bin/hedge.js passes it (process.argv[1]), for the program name hedge's suggestions use.
 */
export async function runMainInProcess(
  root: string,
  args: string[],
  env: Record<string, string>,
  input: string,
  now?: () => number,
  screen?: ScreenSize,
  script?: string,
): Promise<InProcessRun> {
  const main = await builtMain(root);
  // As bin/hedge.js's process on pipes: HEDGE_FORCE_TTY=1 alone makes them count as a terminal
  // (src/cli/main.ts), its width then from COLUMNS.
  const terminal = env.HEDGE_FORCE_TTY === '1';
  const stdout = collector();
  const stderr = screen ? stdout : collector();
  if (screen) Object.assign(stdout.stream, screen);
  const stdin = new PassThrough();
  stdin.end(input);
  const io = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin,
    stdoutIsTTY: terminal,
    stderrIsTTY: terminal,
    stdinIsTTY: false,
  };
  const code = await main(args, { io, env, ...(now ? { now } : {}), ...(script === undefined ? {} : { script }) });
  // The last chunks written reach the collectors on the next turn.
  await new Promise((settled) => setImmediate(settled));
  return { code, stdout: stdout.text(), stderr: screen ? '' : stderr.text() };
}

// Runs a hedge command inside the test process: the built front (dist/cli.js) and its main(), the
// function bin/hedge.js calls, with the run's own streams, stdin and environment. Loaded once per
// test file instead of once per run: a spawned run costs ~250 ms of CPU to start Node and load
// dist/ (Node 20 has no compile cache), and those runs made most of the suite's time.
import { createRequire } from 'node:module';
import { PassThrough } from 'node:stream';
import type { Clock } from '../../src/platform/api/transport.js';
import { until } from './polling.js';

type Front = typeof import('../../src/cli/main.js');

let front: Promise<Front> | undefined;

// Loaded by Node itself (require of an ES module, Node >= 20.19), out of the test runner's module
// loader: that one would transform dist/ and every lazy chunk it loads instead of running the
// bundle as bin/hedge.js does.
const nodeRequire = createRequire(import.meta.url);

// A spawned run gets TZ=UTC (hedge-cli.ts's baseEnv); where hedge shows local time without being
// given a zone (the quote card's "local" line), it reads the process's zone: this one's, made the same.
process.env.TZ = 'UTC';

/** A person at the run's terminal: what is drawn after the keys last typed, and the keys they type. */
export interface Person {
  /** Once `text` is drawn after the keys last typed (before any: since the start), true; false once the run ended without it. */
  asked(text: string): Promise<boolean>;
  type(keys: string): void;
}

/** A pipe that keeps what is written to it, as a spawned run's stdout and stderr are. */
export function collector() {
  const stream = new PassThrough();
  let text = '';
  stream.setEncoding('utf8').on('data', (chunk) => (text += chunk));
  return { stream, text: () => text };
}

/** The built front's main(), loaded once: for a run given streams of its own (an MCP server's stdio). */
export async function builtMain() {
  front ??= Promise.resolve().then(() => nodeRequire('../../dist/cli.js') as Front);
  return (await front).main;
}

/** A terminal's size: stdout and stderr are then one stream, as on a terminal, that reports it. */
export interface ScreenSize {
  columns: number;
  rows: number;
}

/**
 * `clock`: the time hedge reads instead of Date.now (a spawned run pins it with a preload), and the
 * pause it takes instead of a timer's (a simulator's stepped clock). `screen`:
 * stdout and stderr are one stream, so that what both write reads in the order a terminal shows it
 * (in `stdout`); it has the terminal's `columns` and `rows`, which a library drawing on a terminal
 * (log-update under --watch) reads from the stream itself. `script`: the launcher's path as
 * bin/hedge.js passes it (process.argv[1]), for the program name hedge's suggestions use. `input` as
 * a person (with `screen`): stdin is a terminal too, kept open for the keys the person types.
 */
export async function runMainInProcess(
  args: string[],
  env: Record<string, string>,
  input: string | ((person: Person) => Promise<void>),
  clock?: Partial<Clock>,
  screen?: ScreenSize,
  script?: string,
) {
  const main = await builtMain();
  // As bin/hedge.js's process on pipes: HEDGE_FORCE_TTY=1 alone makes them count as a terminal
  // (src/cli/main.ts), its width then from COLUMNS.
  const terminal = env.HEDGE_FORCE_TTY === '1';
  const stdout = collector();
  const stderr = screen ? stdout : collector();
  if (screen) Object.assign(stdout.stream, screen);
  const stdin = new PassThrough();
  const person = typeof input === 'string' ? undefined : input;
  // A prompt pipes its output into the terminal's stream and ends the pipe when it closes: a terminal, as process.stderr, stays open.
  if (person) Object.assign(stdout.stream, { end: () => stdout.stream });
  else stdin.end(input);
  const io = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin,
    stdoutIsTTY: terminal,
    stderrIsTTY: terminal,
    stdinIsTTY: person !== undefined,
  };
  const running = main(args, { io, env, ...clock, script });
  let ended = false;
  const end = () => (ended = true);
  running.then(end, end);
  let typedAt = 0;
  const answered = person?.({
    async asked(text) {
      const shown = () => stdout.text().slice(typedAt).includes(text);
      await until(() => ended || shown(), `"${text}" on the screen of hedge ${args.join(' ')}`);
      return shown();
    },
    type(keys) {
      typedAt = stdout.text().length;
      stdin.write(keys);
    },
  }).catch((error: unknown) => {
    // Ctrl-C ends a prompt still waiting for this person.
    stdin.write('\x03');
    throw error;
  });
  const [ran, answers] = await Promise.allSettled([running, answered]);
  if (answers.status === 'rejected') throw answers.reason;
  if (ran.status === 'rejected') throw ran.reason;
  // The last chunks written reach the collectors on the next turn.
  await new Promise((settled) => setImmediate(settled));
  return { code: ran.value, stdout: stdout.text(), stderr: screen ? '' : stderr.text() };
}

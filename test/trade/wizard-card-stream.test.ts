// The open wizard's quote card is for the person at the prompt: beside a script's format (--format tsv, --json) it is
// drawn on stderr, where the prompts are, and stdout keeps the data alone. In-process with stdout and stderr apart
// (a pseudo-terminal joins them); the simulator's request log says what was sent.
import { PassThrough } from 'node:stream';
import { baseEnv } from '../support/hedge-cli.js';
import { builtMain, collector } from '../support/hedge-in-process.js';
import { until } from '../support/polling.js';
import { MARKET, useSimulators } from '../support/simulator.js';

const startTrading = useSimulators();

it.each(['tsv', 'json'])(
  '--format %s: the wizard draws the quote card on stderr and none on stdout; No sends nothing but the quote (exit 8)',
  async (format) => {
    const trading = await startTrading();
    const [stdout, stderr] = [collector(), collector()];
    const stdin = new PassThrough();
    // A prompt ends the stream it draws on when it closes: a terminal's stays open.
    Object.assign(stderr.stream, { end: () => stderr.stream });
    const io = {
      stdout: stdout.stream,
      stderr: stderr.stream,
      stdin,
      stdoutIsTTY: true,
      stderrIsTTY: true,
      stdinIsTTY: true,
    };
    const env = { ...baseEnv(trading.configDir), ...trading.env, COLUMNS: '100' };
    const main = await builtMain();
    const running = main(['open', MARKET, 'buy', '1000', '--ref', 'CARD-1', '--format', format], { io, env });
    const ended = running.then((code) => ({ code, stderr: stderr.text() }));
    let typedAt = 0;
    const answer = async (prompt: string, keys: string) => {
      await until(() => stderr.text().slice(typedAt).includes(prompt), `"${prompt}" on stderr`, { process: ended });
      typedAt = stderr.text().length;
      stdin.write(keys);
    };
    await answer('? Tenor', '\r');
    await answer('(y/N)', 'n\r');
    const code = await running;
    stdin.end();
    // The last chunks reach the collectors on the next turn.
    await new Promise((settled) => setImmediate(settled));

    expect(code).toBe(8);
    expect(stderr.text()).toContain(`Quote ${MARKET} buy 1,000.00 USD`);
    expect(stderr.text()).toContain('Execution price');
    expect(stdout.text()).not.toContain('Execution price');
    expect(trading.writes().map((entry) => entry.path)).toEqual(['/quotes']);
  },
);

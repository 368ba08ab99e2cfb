// `hedge sandbox serve` of this checkout on a free loopback port, for the bench's jobs against a server.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The server started by `node` in `env` with `args`; resolves to it and the variables it printed (`NAME=value`). */
export function startSandbox(node, env, args = []) {
  const server = spawn(node, [join(ROOT, 'bin', 'hedge.js'), 'sandbox', 'serve', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return new Promise((resolve, reject) => {
    let text = '';
    server.on('exit', (code) =>
      reject(new Error(`hedge sandbox serve exited (${code}) before it printed its address`)),
    );
    server.stdout.setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      if (!text.includes('HEDGE_API_KEY=') || !text.endsWith('\n')) return;
      const vars = text.split('\n').filter((line) => /^HEDGE_\w+=\S+$/.test(line));
      resolve({ server, vars });
    });
  });
}

/** Stops a server started here (its compile cache is written as it exits). */
export async function stopSandbox(server) {
  if (server?.kill()) await new Promise((exited) => server.once('exit', exited));
}

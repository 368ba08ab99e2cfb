// `hedge sandbox serve`: runs the simulator in the foreground.

import { wireDialect } from '../dialects.js';
import type { SandboxDialect } from '../dialect-names.js';
import { DEFAULT_FILL_DELAY_MS } from '../engine.js';
import { startSandbox, type SandboxOptions } from './server.js';

/** The names `hedge sandbox serve --dialect` accepts (re-exported so the command loads one module). */
export { SANDBOX_DIALECTS } from '../dialect-names.js';

interface ServeIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Stops the server like SIGINT does (for embedding and tests). */
  signal?: AbortSignal;
}

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

export async function serveSandbox(options: SandboxOptions, io: ServeIo) {
  const sandbox = await startSandbox(options);
  io.stdout.write(`HEDGE_BASE_URL=${sandbox.baseUrl}\n`);
  io.stdout.write(`HEDGE_API_KEY=${sandbox.apiKey}\n`);
  if (sandbox.caFile) io.stdout.write(`NODE_EXTRA_CA_CERTS=${sandbox.caFile}\n`);
  for (const [name, value] of Object.entries(clientWireSettings(sandbox.engine.dialect)))
    io.stdout.write(`${name}=${value}\n`);
  io.stderr.write(describeSettings(options, sandbox.baseUrl, sandbox.engine.dialect));

  await new Promise<void>((resolve) => {
    const stop = () => {
      for (const signal of STOP_SIGNALS) process.off(signal, stop);
      io.signal?.removeEventListener('abort', stop);
      resolve();
    };
    for (const signal of STOP_SIGNALS) process.once(signal, stop);
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener('abort', stop, { once: true });
  });
  await sandbox.close();
  io.stderr.write('Sandbox stopped.\n');
}

/** The client's wire settings (HEDGE_WIRE_*, src/platform/api/wire/unspecified.ts) that match this dialect. */
function clientWireSettings(dialect: SandboxDialect) {
  const wire = wireDialect(dialect);
  return {
    HEDGE_WIRE_PAGE_SIZE_PARAM: wire.pageSizeParameter,
    HEDGE_WIRE_NOTIONAL_FIELD: wire.changeNotionalField,
    HEDGE_WIRE_PRICES_PARAM: 'symbols',
    // Only a paging dialect reads it; the others never hand out a cursor.
    HEDGE_WIRE_CURSOR_PARAM: 'cursor',
  };
}

function describeWire(dialect: SandboxDialect, severalPerSide: boolean | undefined) {
  const wire = wireDialect(dialect);
  const several = severalPerSide ?? wire.hedgesPerSide === 'several';
  const extras = [
    wire.paging === 'cursor' ? `cursor pages (meta.next_cursor, ${wire.defaultPageSize} by default)` : '',
    wire.closingStatus ? `a hedge shows ${wire.closingStatus} while its close lands` : '',
    wire.amountsAsText ? 'untyped amounts as decimal strings' : '',
    wire.historyPages === 'time' ? 'history pages by time (meta.next_before, 40 a page)' : '',
    wire.references === 'upper-case' ? 'client references kept in upper case' : '',
    `markets ${wire.markets.map((listed) => (listed.status === 'open' ? listed.market : `${listed.market} (${listed.status})`)).join(', ')}`,
  ].filter(Boolean);
  return `Wire: page size as ${wire.pageSizeParameter}, add/reduce notional as ${wire.changeNotionalField}, ${several ? 'several hedges' : 'one hedge'} per side, early close leaves a hedge ${wire.statusAfterEarlyClose}, ${extras.join(', ')} (the HEDGE_WIRE_* lines on stdout set the client to match; hedge also learns them on its own; see src/sandbox/DIALECTS.md).`;
}

function describeSettings(options: SandboxOptions, baseUrl: string, dialect: SandboxDialect) {
  const faults = [
    options.fault5xx ? `5xx ${options.fault5xx}` : '',
    options.fault429 ? `429 ${options.fault429}` : '',
    options.dropAfterCommit ? `drop-after-commit ${options.dropAfterCommit}` : '',
    options.latencyMs ? `latency ${options.latencyMs} ms` : '',
    options.hostileText ? 'hostile text' : '',
    options.dateSkewMs ? `Date header ${options.dateSkewMs > 0 ? '+' : ''}${options.dateSkewMs / 1000} s off` : '',
  ].filter(Boolean);
  const persistence = options.stateFile ? `memory and ${options.stateFile}` : 'memory';
  const seed = options.seed !== undefined ? `, seed ${options.seed}` : '';
  const rateLimit = options.rateLimit ? `, rate limit ${options.rateLimit}/s per key` : '';
  const timing = [
    options.viewLagMs ? `positions, history and account trail the hedge records by ${options.viewLagMs / 1000} s` : '',
    options.recordLagMs ? `a new hedge's record shows ${options.recordLagMs / 1000} s after its open` : '',
    options.settlementDelayMs ? `a hedge settles ${options.settlementDelayMs / 1000} s after its maturity` : '',
    options.dayMs !== undefined ? `a tenor day lasts ${options.dayMs / 1000} s` : '',
  ].filter(Boolean);
  const lines = [
    `Hedge sandbox listening on ${baseUrl} (test keys only, state in ${persistence}).`,
    `Fill delay ${options.fillDelayMs ?? DEFAULT_FILL_DELAY_MS} ms, fail rate ${options.failRate ?? 0}, clock speed ${options.clockSpeed ?? 1}x${seed}${rateLimit}, ${dialect} wire dialect.`,
    `Injected faults: ${faults.length ? faults.join(', ') : 'none'}.`,
    timing.length ? `Timing: ${timing.join(', ')}.` : '',
    options.tls ? 'HTTPS with a local CA: clients must trust the NODE_EXTRA_CA_CERTS file printed on stdout.' : '',
    describeWire(dialect, options.severalPerSide),
    'Export the lines printed on stdout in another shell to point hedge at this sandbox. Press Ctrl-C to stop.',
  ].filter(Boolean);
  return `${lines.join('\n')}\n`;
}

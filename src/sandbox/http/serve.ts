// `hedge sandbox serve`: runs the simulator in the foreground.

import { startSandbox, type SandboxOptions } from './server.js';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** `io.signal` stops the server like SIGINT does (for embedding and tests). */
export async function serveSandbox(
  options: SandboxOptions,
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; signal?: AbortSignal },
) {
  const sandbox = await startSandbox(options);
  const { wire, fillDelayMs } = sandbox.engine;
  const exports = [
    `HEDGE_BASE_URL=${sandbox.baseUrl}`,
    `HEDGE_API_KEY=${sandbox.apiKey}`,
    sandbox.caFile && `NODE_EXTRA_CA_CERTS=${sandbox.caFile}`,
    // The client's wire settings (HEDGE_WIRE_*, src/platform/api/wire/unspecified.ts) that match this dialect; only
    // a paging dialect reads the cursor's, the others never hand out a cursor.
    `HEDGE_WIRE_PAGE_SIZE_PARAM=${wire.pageSizeParameter}`,
    `HEDGE_WIRE_NOTIONAL_FIELD=${wire.changeNotionalField}`,
    'HEDGE_WIRE_PRICES_PARAM=symbols',
    'HEDGE_WIRE_CURSOR_PARAM=cursor',
  ];
  io.stdout.write(lines(exports));

  const {
    fault5xx,
    fault429,
    dropAfterCommit,
    latencyMs,
    dateSkewMs,
    seed,
    rateLimit,
    stateFile,
    viewLagMs,
    recordLagMs,
    settlementDelayMs,
    dayMs,
  } = options;
  const faults = [
    fault5xx && `5xx ${fault5xx}`,
    fault429 && `429 ${fault429}`,
    dropAfterCommit && `drop-after-commit ${dropAfterCommit}`,
    latencyMs && `latency ${latencyMs} ms`,
    options.hostileText && 'hostile text',
    dateSkewMs && `Date header ${dateSkewMs > 0 ? '+' : ''}${dateSkewMs / 1000} s off`,
  ].filter(Boolean);
  const timing = [
    viewLagMs && `positions, history and account trail the hedge records by ${viewLagMs / 1000} s`,
    recordLagMs && `a new hedge's record shows ${recordLagMs / 1000} s after its open`,
    settlementDelayMs && `a hedge settles ${settlementDelayMs / 1000} s after its maturity`,
    dayMs !== undefined && `a tenor day lasts ${dayMs / 1000} s`,
  ].filter(Boolean);
  const extras = [
    wire.paging === 'cursor' && `cursor pages (meta.next_cursor, ${wire.defaultPageSize} by default)`,
    wire.paging === 'numbers' &&
      `pages by number (page from 0, size ${wire.defaultPageSize} by default, meta.total_elements)`,
    wire.closingStatus && `a hedge shows ${wire.closingStatus} while its close lands`,
    wire.amountsAsText && 'untyped amounts as decimal strings',
    wire.historyPages === 'time' && 'history pages by time (meta.next_before, 40 a page)',
    wire.references === 'upper-case' && 'client references kept in upper case',
    `markets ${wire.markets.map((listed) => (listed.status === 'open' ? listed.market : `${listed.market} (${listed.status})`)).join(', ')}`,
  ].filter(Boolean);
  io.stderr.write(
    lines([
      `Hedge sandbox listening on ${sandbox.baseUrl} (test keys only, state in ${stateFile ? `memory and ${stateFile}` : 'memory'}).`,
      `Fill delay ${fillDelayMs} ms, fail rate ${options.failRate ?? 0}, clock speed ${options.clockSpeed ?? 1}x${seed !== undefined ? `, seed ${seed}` : ''}${rateLimit ? `, rate limit ${rateLimit}/s per key` : ''}, ${wire.name} wire dialect.`,
      `Injected faults: ${faults.length ? faults.join(', ') : 'none'}.`,
      timing.length && `Timing: ${timing.join(', ')}.`,
      options.tls && 'HTTPS with a local CA: clients must trust the NODE_EXTRA_CA_CERTS file printed on stdout.',
      `Wire: page size as ${wire.pageSizeParameter}, add/reduce notional as ${wire.changeNotionalField}, ${wire.hedgesPerSide === 'several' ? 'several hedges' : 'one hedge'} per side, early close leaves a hedge ${wire.statusAfterEarlyClose}, ${extras.join(', ')} (the HEDGE_WIRE_* lines on stdout set the client to match; hedge also learns them on its own; see src/sandbox/DIALECTS.md).`,
      'Export the lines printed on stdout in another shell to point hedge at this sandbox. Press Ctrl-C to stop.',
    ]),
  );

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

/** The lines given (falsy ones left out), each ended by a newline. */
const lines = (given: unknown[]) => given.map((line) => (line ? `${line}\n` : '')).join('');

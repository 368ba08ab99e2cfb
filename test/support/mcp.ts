// `hedge mcp` driven by the official SDK's client. In-process by default: the built front's main()
// (as hedge-cli.ts's in-process runs) with the server's stdin and stdout as pipes in memory, which
// carry the same newline-delimited JSON-RPC as stdio. `spawn: true` (or HEDGE_TEST_SPAWN_EVERY_RUN=1)
// runs `node bin/hedge.js mcp` over real stdio instead, for what only the launcher shows.
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Clock } from '../../src/platform/api/transport.js';
import { HEDGE_BIN, ROOT, SPAWN_EVERY_RUN, baseEnv } from './hedge-cli.js';
import { builtMain, collector } from './hedge-in-process.js';
import { closedAfter, closedAfterEach, type Simulator } from './simulator.js';

export interface McpAnswer {
  isError?: boolean;
  content: Array<{ type: string; text: string }>;
}

interface McpServeOptions {
  /** After `hedge mcp`. */
  args?: string[];
  /** On top of the simulator's environment. */
  env?: Record<string, string>;
  /** The directory the server starts in (its default root); the checkout when not given. */
  cwd?: string;
  /** A client set up by the test (capabilities, handlers); a plain one when not given. */
  client?: Client;
  /** A real `node bin/hedge.js mcp` process over stdio. */
  spawn?: boolean;
}

type McpServed = Awaited<ReturnType<typeof startMcpServer>>;

/**
 * The client's end of a server run in this process: the SDK's newline-delimited JSON-RPC, read from
 * the server's stdout and written to its stdin (its stdio framing is the same both ways).
 */
class PipeTransport extends StdioServerTransport {
  private finished?: Promise<void>;

  constructor(
    private readonly toServer: PassThrough,
    fromServer: PassThrough,
    private readonly ended: Promise<unknown>,
  ) {
    super(fromServer, toServer);
  }

  override async start() {
    await super.start();
    // A server that stops by itself (a bad option, exit 2) closes the connection as a process would.
    void this.ended.then(() => this.finish());
  }

  override async close() {
    // As the SDK's stdio client does: the server's stdin ends, and it stops.
    this.toServer.end();
    await this.ended;
    await this.finish();
  }

  private finish() {
    return (this.finished ??= super.close());
  }
}

async function inProcess(env: Record<string, string>, args: string[], clock?: Clock) {
  const main = await builtMain();
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const errors = collector();
  const io = {
    stdin: toServer,
    stdout: fromServer,
    stderr: errors.stream,
    stdinIsTTY: false,
    stdoutIsTTY: false,
    stderrIsTTY: false,
  };
  // The server takes the working directory as its default root when it starts, and keeps it.
  const ended = main(['mcp', ...args], { io, env, ...clock }).then(
    () => new Promise((settled) => setImmediate(settled)),
  );
  return { transport: new PipeTransport(toServer, fromServer, ended), stderr: errors.text };
}

function spawned(env: Record<string, string>, args: string[], cwd: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HEDGE_BIN, 'mcp', ...args],
    env,
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  return { transport, stderr: () => stderr };
}

/** Starts `hedge mcp` against a simulator; the caller closes it. */
async function startMcpServer(simulator: Simulator, options: McpServeOptions = {}) {
  const env = { ...baseEnv(simulator.configDir), ...simulator.env, ...options.env };
  const { args = [], cwd = ROOT, client = new Client({ name: 'hedge-e2e', version: '1.0.0' }) } = options;
  let served: { transport: Transport; stderr: () => string };
  if (options.spawn || SPAWN_EVERY_RUN) {
    served = spawned(env, args, cwd);
    await client.connect(served.transport);
  } else {
    // The server reads the working directory once, before it answers the client's initialize.
    const before = process.cwd();
    process.chdir(cwd);
    try {
      served = await inProcess(env, args, simulator.clock);
      await client.connect(served.transport);
    } finally {
      process.chdir(before);
    }
  }
  let closing: Promise<string> | undefined;
  return {
    client,
    call: async (name: string, callArgs: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: callArgs })) as McpAnswer,
    /** Closes the client and waits for the server to end: its stderr is then complete. */
    close: () => (closing ??= client.close().then(() => served.stderr())),
  };
}

/** A starter of `hedge mcp` servers against a simulator, each closed after its test. */
export const useMcpServers = () => closedAfterEach(startMcpServer);

/** Runs `body` with a server of its own and closes it after, whatever happens: for `it.concurrent`, as withSimulator. */
export const withMcpServer = <T>(
  simulator: Simulator,
  options: McpServeOptions,
  body: (served: McpServed) => Promise<T>,
) => closedAfter(startMcpServer(simulator, options), body);

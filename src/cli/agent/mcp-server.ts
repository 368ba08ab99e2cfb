// `hedge mcp` on the wire: a Model Context Protocol server over stdio, built with the official SDK.
import type { Readable, Writable } from 'node:stream';
import { VERSION } from '../../core/version.js';
import { clientRootPaths, type FileAccess } from './file-access.js';
import type { AgentToolbox } from './toolbox.js';

/** How long the client has to answer roots/list before a file read is refused. */
const LIST_ROOTS_TIMEOUT_MS = 10_000;

const INSTRUCTIONS = `Tools of the hedge CLI (FX hedges through the Hedging Partner API), one per command, with the same arguments. A result is the JSON \`hedge <command> --json\` prints; an error is {"error": {code, class, message, hint, argument?}, "exit_code"}. Write tools (open, add, reduce, close, roll, apply, resume) act on the account and wait until the action resolves; on a live key each needs a preview call first and then a second call with the confirmation_token it returned.`;

/** Serves until the client closes stdin or `signal` stops the server (Ctrl-C, SIGTERM); calls still running then are stopped like an interrupted command (what they sent stands, in the journal) and awaited, so that their journal entries are complete before the process ends. */
export async function serveStdio(
  toolbox: AgentToolbox,
  streams: { stdin: NodeJS.ReadableStream; stdout: NodeJS.WritableStream },
  signal: AbortSignal,
  files: FileAccess,
) {
  // The SDK is imported here, not at the top: the build keeps it out of the one script (scripts/esbuild-options.mjs).
  const [{ Server }, { StdioServerTransport }, { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
  const stopping = new AbortController();
  const running = new Set<Promise<unknown>>();
  // The SDK's low-level server, declaring its tools as its McpServer wrapper would (listChanged included).
  const server = new Server(
    { name: 'hedge', version: VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolbox.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // A call stops when the client cancels it or the server stops (its journal entry stays).
    const call = toolbox.call(
      request.params.name,
      request.params.arguments,
      AbortSignal.any([extra.signal, stopping.signal]),
    );
    running.add(call);
    void call.finally(() => running.delete(call)).catch(() => {});
    const result = await call;
    if (!result) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return result;
  });
  // A client that declares roots has them honoured too: asked on each file read (so a change the client makes applies at once), and a file must be under one of them as well as the server's.
  server.oninitialized = () => {
    if (!server.getClientCapabilities()?.roots) return;
    files.useClientRoots(async (callSignal) => {
      const listed = await server.listRoots(undefined, { signal: callSignal, timeout: LIST_ROOTS_TIMEOUT_MS });
      return clientRootPaths(listed.roots.map((root) => root.uri));
    });
  };
  const stdin = streams.stdin as Readable;
  const transport = new StdioServerTransport(stdin, streams.stdout as Writable);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    stdin.once('end', resolve);
    stdin.once('close', resolve);
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await closed;
  stopping.abort(signal.aborted ? signal.reason : undefined);
  await Promise.allSettled([...running]);
  await server.close().catch(() => {});
}

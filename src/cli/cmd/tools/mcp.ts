// hedge mcp [--allow-live] — the commands as Model Context Protocol tools over stdio, for an AI
// agent. The global options and HEDGE_* are read once, here, like any command: the key (and so the
// safety tier) is resolved before the first message, and --demo's simulator starts once and serves
// every call. stdout carries the protocol only; messages go to stderr.
import type { CommandModule, CommandSpec } from '../../runner/command-spec.js';
import { agentTools, offered } from '../../agent/catalogue.js';
import { type CommandContext, type In, stopExitCode } from '../command-input.js';
import { resolve } from 'node:path';
import { FileAccess, serverRoots } from '../../agent/file-access.js';
import {
  AgentToolbox,
  ConfirmationTokens,
  describeLimits,
  parseAgentLimits,
  tokenTtlSeconds,
} from '../../agent/toolbox.js';
import { redactKey } from '../../../core/security/secrets.js';
import { formatSpan } from '../../../core/duration.js';

/** What this command uses of its context. */
export type Options = Pick<
  CommandContext,
  'clock' | 'connections' | 'credentials' | 'env' | 'globals' | 'io' | 'output' | 'signal'
>;

/** The command, given the tree it serves as tools (by the manifest, which loads it). */
export function withCommands(commands: readonly CommandSpec[]): CommandModule<In<'MCP'>> {
  return {
    async run(ctx: Options, input) {
      // How long a live write's confirmation token is valid (HEDGE_MCP_TOKEN_TTL_SECONDS), checked first.
      const ttlSeconds = tokenTtlSeconds(ctx.env);
      // The operator's limits are checked before the key is even resolved: a typo is exit 2 at once.
      const limits = parseAgentLimits(input.options);
      const credentials = await ctx.credentials();
      // Relative --root values and file paths start from the directory the server was started in.
      const cwd = resolve('.');
      const files = new FileAccess(await serverRoots(input.options.root, cwd), cwd);
      const tools = agentTools(commands);
      const toolbox = new AgentToolbox(
        {
          env: ctx.env,
          globals: ctx.globals,
          clock: ctx.clock,
          credentials,
          log: (text) => ctx.io.stderr.write(`${text}\n`),
          files,
          connections: await ctx.connections(),
        },
        new ConfirmationTokens(ttlSeconds, ctx.clock.now),
        { allowLive: input.options.allowLive === true, limits, tools },
      );
      const live = ctx.output.chalk.red.bold('LIVE');
      const tier =
        toolbox.access === 'direct'
          ? 'read and write tools (test key)'
          : toolbox.access === 'token'
            ? `${live}: read tools, and write tools that each need a confirmation token (valid ${formatSpan(ttlSeconds * 1000)})`
            : `${live}: read tools only (write tools need --allow-live)`;
      ctx.output.note(
        // Counted without their input schemas, which are built when a client lists them.
        `hedge mcp: serving ${tools.filter((tool) => offered(tool, toolbox.access)).length} tools over stdio with key ${redactKey(credentials.apiKey)} — ${tier}.`,
      );
      ctx.output.note(
        files.roots.length
          ? `hedge mcp: plan and apply read target files under ${files.roots.map((root) => root.path).join(', ')} (and the client's roots, where it sends them), or take rows inline.`
          : 'hedge mcp: no root to read target files from (started in the file system root; use --root DIR): plan and apply take rows inline only.',
      );
      const described = describeLimits(limits);
      if (described) ctx.output.note(`hedge mcp: write limits — ${described}.`);
      // The calls share the server's connections (ctx.connections()); they are closed once, when it ends.
      const { serveStdio } = await import('../../agent/mcp-server.js');
      await serveStdio(toolbox, ctx.io, ctx.signal, files);
      return ctx.signal.aborted ? stopExitCode(ctx.signal.reason) : 0;
    },
  };
}

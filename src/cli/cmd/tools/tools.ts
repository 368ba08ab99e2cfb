// hedge tools: the catalogue `hedge mcp` serves, for agents that call the CLI directly. Sends nothing; with --demo
// the simulator is not even started (its key is a test key).
import type { CommandModule, CommandSpec } from '../../runner/command-spec.js';
import { type CommandContext, type In, HedgeError } from '../command-input.js';
import { agentTools, catalogueEntry, writeAccess } from '../../agent/catalogue.js';
import { tokenTtlSeconds } from '../../agent/toolbox.js';
import { errorCatalogue } from '../../agent/error-catalogue.js';
import { TOOL_RESOURCE } from '../../../platform/fields/resource-fields.js';
import { fieldTable } from '../../../platform/fields/fields.js';

/** What this command uses of its context. */
export type Options = Pick<CommandContext, 'credentials' | 'env' | 'globals' | 'hedgeCommand' | 'output'>;

async function environment(ctx: Options) {
  if (ctx.globals.demo) return 'test';
  try {
    return (await ctx.credentials()).environment;
  } catch (error) {
    if (!(error instanceof HedgeError)) throw error;
    ctx.output.warn(`No usable API key: ${error.message} Write tools are shown as not offered.`);
  }
}

/** The command, given the tree it lists as tools (by the manifest, which loads it). */
export function withCommands(commands: readonly CommandSpec[]): CommandModule<In<'TOOLS'>> {
  return {
    async run(ctx: Options, input) {
      // `--errors`: the error catalogue (agent/error-catalogue.ts), whole.
      if (input.options.errors === true) {
        const entries = errorCatalogue();
        return ctx.output.list(
          entries.map((entry) => ({
            ...entry,
            applies_to: [entry.applies_to].flat().join(' '),
            retryable: entry.retryable ? 'yes' : 'no',
          })),
          fieldTable(`
          code         Code
          exit_code    Exit        count
          class        Class
          retryable    Retry?
          retry        How
          what_to_do   What to do
          retry_after  When
          applies_to   Tools`),
          { empty: 'No error codes.', json: entries },
        );
      }
      const { output } = ctx;
      const access = writeAccess(await environment(ctx), false);
      const entries = agentTools(commands).map((tool) => catalogueEntry(tool, access, tokenTtlSeconds(ctx.env)));
      const rows = entries.map(({ name, tier, offered, input_schema: schema }) => {
        const required = schema.required ?? [];
        const optional = Object.keys(schema.properties ?? {}).length - required.length;
        return {
          name,
          tier,
          offered: offered ? 'yes' : 'no',
          arguments: [...required, ...(optional > 0 ? [`(+${optional} optional)`] : [])].join(' '),
        };
      });
      await output.list(rows, TOOL_RESOURCE, { empty: 'No tools.', json: entries });
      output.tableNote(
        output.chalk.dim(
          `Schemas and descriptions: ${ctx.hedgeCommand('tools', '--json')}. Serve them to an agent: ${ctx.hedgeCommand('mcp')}.`,
        ),
      );
    },
  };
}

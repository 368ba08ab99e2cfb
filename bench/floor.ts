// The floor of the parts hedge chose, for `hedge markets --json` against a server: commander with hedge's
// whole command tree (its own declarations), zod/mini with the API's own schemas, one node:http GET of
// /markets with the key, the answer checked and printed as JSON. No runner, profile, output layer or
// checks of hedge's own. bench/run.mjs bundles it as dist/ is bundled and times it beside hedge.
import { Command, Option } from 'commander';
import * as z from 'zod/mini';
import { COMMANDS, GLOBAL_OPTIONS } from '../src/cli/manifest.js';
import type { CommandSpec } from '../src/cli/runner/command-spec.js';
import { envelopeSchema, marketSchema } from '../src/platform/api/schemas.js';

function declare(parent: Command, spec: CommandSpec): Command {
  const command = parent.command(spec.name).description(spec.summary);
  for (const arg of spec.args ?? [])
    command.argument(arg.required ? `<${arg.name}>` : `[${arg.name}]`, arg.description);
  for (const option of spec.options ?? []) command.addOption(new Option(option.flags, option.description));
  for (const sub of spec.subcommands ?? []) declare(command, sub);
  return command;
}

const program = new Command('hedge');
for (const option of GLOBAL_OPTIONS) program.addOption(new Option(option.flags, option.description));
const commands = COMMANDS.map((spec) => declare(program, spec));
commands[COMMANDS.findIndex((spec) => spec.name === 'markets')].action(async () => {
  const { get } = process.getBuiltinModule('node:http');
  const headers = { authorization: `Bearer ${process.env.HEDGE_API_KEY}` };
  const body = await new Promise<string>((resolve, reject) =>
    get(`${process.env.HEDGE_BASE_URL}/markets`, { headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text));
    }).on('error', reject),
  );
  const markets = z.array(marketSchema).parse(envelopeSchema.parse(JSON.parse(body)).data);
  process.stdout.write(`${JSON.stringify(markets, null, 2)}\n`);
});
await program.parseAsync();

// Builds the commander program from the manifest, runs one command with its context, and turns
// whatever it ends with into an exit code (the mapping itself lives in exit-codes.ts).
import { isatty } from 'node:tty';
import { Command, CommanderError, Option } from 'commander';
import { COMMANDS, GLOBAL_OPTIONS, type CommandInput, type CommandSpec } from './commands/manifest.js';
import { scrubSecrets } from './config/api-key.js';
import { UsageError } from './errors.js';
import { VERSION } from './version.js';
import type { GlobalOptions, Io } from './context.js';

export interface MainOverrides {
  io?: Io;
  env?: Record<string, string | undefined>;
}

interface Invocation {
  spec: CommandSpec;
  path: string[];
  input: CommandInput;
  globals: GlobalOptions;
}

function processIo(env: Record<string, string | undefined>): Io {
  // HEDGE_FORCE_TTY=1 makes the human table output testable (and usable through `less -R`).
  const forced = env.HEDGE_FORCE_TTY === '1' ? true : env.HEDGE_FORCE_TTY === '0' ? false : undefined;
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // Made on first use: creating process.stdin loads Node's file streams and readline, ~2 ms
    // that `hedge --help` and most commands never need (bench/results.md). isatty(0) is what
    // process.stdin.isTTY would say, without creating the stream.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY: forced ?? process.stdout.isTTY === true,
    stderrIsTTY: forced ?? process.stderr.isTTY === true,
    stdinIsTTY: isatty(0),
  };
}

function examplesText(spec: CommandSpec): string {
  return `\nExamples:\n${spec.examples.map((example) => `  $ ${example}`).join('\n')}\n`;
}

function addCommand(parent: Command, spec: CommandSpec, path: string[], select: (invocation: Invocation) => void): void {
  const command = parent.command(spec.name).summary(spec.summary).description(spec.summary);
  for (const arg of spec.args ?? []) {
    command.argument(arg.required ? `<${arg.name}>` : `[${arg.name}]`, arg.description);
  }
  for (const option of spec.options ?? []) command.addOption(new Option(option.flags, option.description));
  command.addHelpText('after', examplesText(spec));
  if (spec.subcommands) {
    for (const sub of spec.subcommands) addCommand(command, sub, [...path, spec.name], select);
    return;
  }
  command.action((...actionArgs: unknown[]) => {
    const self = actionArgs[actionArgs.length - 1] as Command;
    const values = actionArgs.slice(0, (spec.args ?? []).length) as Array<string | undefined>;
    const args = Object.fromEntries((spec.args ?? []).map((arg, index) => [arg.name, values[index]]));
    const all = self.optsWithGlobals();
    select({
      spec,
      path: [...path, spec.name],
      input: { args, options: self.opts() },
      globals: parseGlobals(all),
    });
  });
}

function positiveSeconds(name: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  // Plain decimals only: Number() would also take "0x10" or "1e3".
  if (typeof raw !== 'string' || !/^\s*\d*\.?\d+\s*$/.test(raw) || value <= 0 || value > 86_400) {
    throw new UsageError(`${name}: expected a number of seconds greater than 0 and at most 86400 (got "${String(raw)}").`);
  }
  return value;
}

function parseGlobals(all: Record<string, unknown>): GlobalOptions {
  return {
    json: all.json === true,
    profile: typeof all.profile === 'string' ? all.profile : undefined,
    demo: all.demo === true,
    yes: all.yes === true,
    input: all.input !== false,
    color: all.color !== false,
    verbose: all.verbose === true,
    timeout: positiveSeconds('--timeout', all.timeout),
    requestTimeout: positiveSeconds('--request-timeout', all.requestTimeout),
  };
}

/** Commander puts its suggestion on a second line; bad input is always exactly one line on stderr. */
function oneLine(text: string): string {
  return `${text
    .trim()
    .replace(/\s*\n\s*\(Did you mean (.+?)\?\)/, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ')}\n`;
}

export function buildProgram(select: (invocation: Invocation) => void): Command {
  const program = new Command('hedge')
    .description('Quote, open and manage FX hedges on frontier-market currencies through the Hedging Partner API.')
    .version(VERSION, '-V, --version')
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      '\nExamples:\n  $ hedge --demo quote USDTNGN buy 10000 --tenor 3\n  $ hedge open USDTNGN buy 10000 --tenor 3\n  $ hedge positions --json\n\nExit codes: hedge help exit-codes\n',
    );
  for (const option of GLOBAL_OPTIONS) program.addOption(new Option(option.flags, option.description));
  for (const spec of COMMANDS) addCommand(program, spec, [], select);
  return program;
}

export async function main(argv: string[], overrides: MainOverrides = {}): Promise<number> {
  const env = overrides.env ?? process.env;
  const io = overrides.io ?? processIo(env);
  if (argv[0] === 'help' && argv[1] === 'exit-codes') {
    const { renderExitCodes } = await import('./ui/exit-code-table.js');
    io.stdout.write(renderExitCodes());
    return 0;
  }
  let invocation: Invocation | undefined;
  const program = buildProgram((selected) => {
    invocation = selected;
  });
  // Bad input is reported before the command runs, so --json is read off argv here: a script
  // gets the same {"error":…} line as for any other failure.
  const json = argv.includes('--json');
  const usageLine = (message: string): string =>
    json
      ? `${JSON.stringify({ error: { code: 'usage', message: message.trim(), details: {}, status: null } })}\n`
      : `hedge: ${message}`;
  // Subcommands copy these settings when they are created, which happened in buildProgram:
  // apply them to every command, or an unknown option of a subcommand exits 1 past our streams.
  const configure = (command: Command): void => {
    command.exitOverride();
    command.configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // A key typed as an option (`--api-key=…`) is echoed back by commander: never whole.
      outputError: (text, write) => write(usageLine(scrubSecrets(oneLine(text.replace(/^error: /, ''))))),
    });
    for (const sub of command.commands) configure(sub);
  };
  configure(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      return 2;
    }
    if (error instanceof UsageError) {
      io.stderr.write(usageLine(`${scrubSecrets(error.message)}\n`));
      return 2;
    }
    throw error;
  }
  if (!invocation) return 0;
  const { runInvocation } = await import('./run.js');
  return runInvocation(invocation.spec, invocation.input, invocation.globals, { io, env });
}

// The front door: builds the commander program from the manifest, parses argv and hands the chosen
// command to the lazily loaded runner (run.ts). It bundles commander and no other package.
import { isatty } from 'node:tty';
import { Command, CommanderError, Help, Option } from 'commander';
import { type CommandSpec, type RawInput } from './runner/command-spec.js';
import { jsonErrorsAsked, parseGlobals, typedGlobalWords } from './globals.js';
import { commandHelpEnd, invokedNote, overview, rootHelp } from './help.js';
import { COMMANDS, GLOBAL_OPTIONS } from './manifest.js';
import { commandHabitMessage, meantForExtraArguments, suggestedLine, unknownOptionMessage } from './nearest-option.js';
import { VERSION } from '../core/version.js';
import { invokedAs } from '../core/program.js';
import type { Clock } from '../platform/api/transport.js';
import type { GlobalOptions } from '../platform/runtime/context.js';
import { terminalColumns, type Io } from '../platform/terminal/terminal.js';

/** `now` and `sleep`: the clock hedge reads and pauses on (Date.now, timers), which a test pins or runs on the server's. */
interface MainOverrides extends Partial<Clock> {
  io?: Io;
  env?: Record<string, string | undefined>;
  /** The script the process was started with (process.argv[1]): hints name hedge as it was run. Absent: `hedge`. */
  script?: string;
}

/** The io of this process. A terminal's writes queue instead of blocking: Node writes to a terminal synchronously, so
 * one that stops reading (Ctrl-S, a full pty) would stop the event loop there, and with it every signal, timer and wait
 * of the command. HEDGE_FORCE_TTY=1 makes the human table output testable (and usable through `less -R`). */
function processIo(env: Record<string, string | undefined>) {
  const { stdout, stderr, stdin } = process;
  for (const stream of [stdout, stderr])
    if (stream.isTTY)
      (stream as { _handle?: { setBlocking?: (blocking: boolean) => void } })._handle?.setBlocking?.(false);
  const forced = env.HEDGE_FORCE_TTY === '1' ? true : env.HEDGE_FORCE_TTY === '0' ? false : undefined;
  return {
    stdout,
    stderr,
    stdin,
    stdoutIsTTY: forced ?? stdout.isTTY === true,
    stderrIsTTY: forced ?? stderr.isTTY === true,
    stdinIsTTY: isatty(0),
  };
}

/** commander's Command, naming the closest option for an unknown one, always, in one line. */
class HedgeCommand extends Command {
  /** The command's first example, given with its usage when an argument is missing. */
  example?: string;
  /** On the program: the command line as typed, and the global options in it (kept in every line a hint suggests). */
  typed?: { argv: readonly string[]; globals: readonly string[] };

  override createCommand(name?: string) {
    return new HedgeCommand(name);
  }

  /** The command line as typed, from the program at the top. */
  private get line() {
    return (lineage(this).at(-1) as HedgeCommand).typed ?? { argv: [], globals: [] };
  }

  /** Every commander error; a missing argument or option value, or one too many, also says the command's usage and an example. */
  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    const code = errorOptions?.code;
    if (code === 'commander.excessArguments') {
      const meant = meantForExtraArguments(
        this.line.argv,
        {
          name: this.name(),
          takesTenor: this.options.some((option) => option.long === '--tenor'),
          expected: this.registeredArguments.length,
        },
        this.args,
      );
      if (meant) return super.error(`${message.replace(/\.$/, '')}; did you mean \`${meant}\`?`, errorOptions);
    } else if (code !== 'commander.missingArgument' && code !== 'commander.optionMissingArgument')
      return super.error(message, errorOptions);
    // Named with the global options the user typed (`hedge --demo quote …`), as every suggested line.
    const named = (line: string) => line.replace(/^hedge\b/, suggestedLine(this.line.globals, []));
    const example = this.example === undefined ? '' : `, e.g. \`${named(this.example)}\``;
    const usage = named(this.createHelp().commandUsage(this));
    return super.error(`${message.replace(/\.$/, '')}; usage: \`${usage}\`${example}.`, errorOptions);
  }

  /** Called by commander's parser (not in its typings) for an option no command on the path declares. */
  unknownOption(flag: string) {
    // This command's options first (they win a tie), then each parent's: the global ones last. Every option
    // hedge declares has a long flag.
    const candidates = lineage(this).flatMap((command) => command.options.map((option) => option.long!));
    return this.error(unknownOptionMessage(flag, [...candidates, '--help'], commandWords(this), this.line.globals), {
      code: 'commander.unknownOption',
      exitCode: 2,
    });
  }

  /** Called by commander's parser (not in its typings) for a word that names no command here: another CLI's habit is named with hedge's own. */
  unknownCommand() {
    const habit = this.parent ? undefined : commandHabitMessage(this.line.argv, this.args);
    if (habit) return this.error(habit, { code: 'commander.unknownCommand', exitCode: 2 });
    return (Command.prototype as unknown as { unknownCommand(this: Command): never }).unknownCommand.call(this);
  }
}

/** The command and its parents, up to the program. */
function lineage(command: Command | null): Command[] {
  return command ? [command, ...lineage(command.parent)] : [];
}

/** The names below the program down to `command` (`keep run`). */
const commandWords = (command: Command) =>
  lineage(command)
    .map((each) => each.name())
    .reverse()
    .slice(1);

/** Commander's message without its `error: `; commander puts its suggestion on a second line; bad input is always exactly one line on stderr. */
function oneLine(text: string) {
  return `${text
    .replace(/^error: /, '')
    .trim()
    .replace(/\s*\n\s*\(Did you mean (.+?)\?\)/, ' (did you mean $1?)')
    .replace(/\s*\n\s*/g, ' ')}\n`;
}

export async function main(argv: string[], overrides: MainOverrides = {}) {
  const env = overrides.env ?? process.env;
  const io = overrides.io ?? processIo(env);
  const width = terminalColumns(io.stdout, io.stdoutIsTTY, env);
  const name = overrides.script === undefined ? 'hedge' : invokedAs(overrides.script, process.cwd(), env.PATH);
  const words = argv.filter((word) => !word.startsWith('-'));
  if (words[0] === 'help' && words[1] === 'exit-codes') {
    const { renderExitCodes } = await import('../platform/terminal/exit-code-table.js');
    io.stdout.write(renderExitCodes(argv.includes('--json'), width));
    return 0;
  }
  if (!argv.length) {
    // `hedge` alone: one screen on what it is and where to start, as a success.
    io.stdout.write(overview(width, name));
    return 0;
  }
  const { invocation, usageProblem } = await parseCommandLine(argv, io, width, name);
  // Neither: help (or the version) was printed, a success.
  if (usageProblem === undefined && !invocation) return 0;
  const { reportUsageProblem, runInvocation } = await import('./run.js');
  if (usageProblem !== undefined)
    return reportUsageProblem(usageProblem, { io, json: jsonErrorsAsked(argv), env, program: name });
  const { spec, input, globals, path } = invocation!;
  return runInvocation(spec, input, { ...globals, program: name }, { ...overrides, io, env, path });
}

/** argv parsed by the whole tree of commands: the command chosen, a usage problem, or help printed. */
async function parseCommandLine(argv: string[], io: Io, width: number, name: string) {
  let invocation: { spec: CommandSpec; path: string[]; input: RawInput; globals: GlobalOptions } | undefined;
  let usageProblem: string | undefined;
  // Help and usage errors say `hedge`: an error's quoted commands are named as run when reported (asRun).
  const program = new HedgeCommand('hedge')
    // Set before the subcommands are made: they copy it. A command's help names the global options
    // only (commander leaves them out; commandHelpEnd names them), and its description follows the
    // usage line without a blank one, so that it fits one screen.
    .configureHelp({
      helpWidth: width,
      minWidthToWrap: 20,
      formatHelp: (command, helper) => Help.prototype.formatHelp.call(helper, command, helper).replace('\n\n', '\n'),
    })
    .description('Quote, open and manage FX hedges through the Hedging Partner API.')
    .version(VERSION)
    // Also copied by the subcommands: no usage problem exits past our streams.
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Reported by the runner's one error reporter (it redacts a key typed as an option).
      outputError: (text) => {
        usageProblem = oneLine(text);
      },
    });
  program.typed = { argv, globals: typedGlobalWords(argv, GLOBAL_OPTIONS) };
  for (const option of GLOBAL_OPTIONS) program.addOption(new Option(option.flags, option.description));
  const add = (parent: Command, spec: CommandSpec) => {
    const command = (parent as HedgeCommand)
      .command(spec.name, { isDefault: spec.isDefault })
      .summary(spec.summary)
      .description(spec.description ?? spec.summary);
    command.example = spec.examples[0];
    const args = spec.args ?? [];
    for (const arg of args) command.argument(arg.required ? `<${arg.name}>` : `[${arg.name}]`, arg.description);
    for (const option of spec.options ?? []) {
      const made = new Option(option.flags, option.description);
      // Each occurrence adds to the list, in the order typed.
      if (option.kind === 'repeatable')
        made.argParser((value, previous: string[] | undefined) => [...(previous ?? []), value]);
      command.addOption(made);
    }
    // Made when help is shown, not for every command at every start.
    command.addHelpText('after', () => commandHelpEnd(spec, width));
    if (spec.subcommands) {
      for (const sub of spec.subcommands) add(command, sub);
      return;
    }
    command.action((...actionArgs: unknown[]) => {
      const self = actionArgs.at(-1) as Command;
      // A command option named like a global one (`hedge api --input FILE` beside `--no-input`)
      // shadows it in optsWithGlobals: the program's own values win for the globals.
      const parsed = parseGlobals({ ...self.optsWithGlobals(), ...program.opts() });
      // A bad global option: reported like commander's own errors.
      if ('problem' in parsed) {
        usageProblem = parsed.problem;
        return;
      }
      invocation = {
        spec,
        path: commandWords(self),
        input: {
          args: Object.fromEntries(args.map((arg, index) => [arg.name, actionArgs[index] as string])),
          options: self.opts(),
        },
        globals: parsed.globals,
      };
    });
  };
  for (const spec of COMMANDS) add(program, spec);
  // The program's own help is the grouped list (set after the subcommands, which keep commander's layout).
  program.configureHelp({ formatHelp: () => rootHelp(width) });
  const note = invokedNote(name);
  if (note !== undefined) program.addHelpText('beforeAll', note);
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander's ways of saying "help (or the version) was printed": each a success.
      if (['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code)) return {};
      usageProblem ??= oneLine(error.message);
    } else throw error;
  }
  return { invocation, usageProblem };
}

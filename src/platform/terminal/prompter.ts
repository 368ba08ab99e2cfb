// Prompts behind an interface so that a unit test can script the answers; the real one is @inquirer/prompts on the context's own streams.
import { InterruptedError } from '../../core/errors.js';
import { safeStyled, safeText } from '../../core/security/safe-text.js';
import { terminalColumns, type Io } from './terminal.js';
import { wrapWords } from './width.js';
import type { Env } from '../config/env.js';

export interface Prompter {
  select<T>(options: {
    message: string;
    /** `indent`: where a wrapped name's further lines start, in columns after its first (under its text past a label). */
    choices: Array<{ name: string; short?: string; value: T; description?: string; indent?: number }>;
    default?: T;
  }): Promise<T>;
  input(options: {
    message: string;
    default?: string;
    validate?: (value: string) => true | string | Promise<true | string>;
    /** A refused answer is wiped from the line, not kept there to edit: it may be a key typed in the wrong place. */
    wipeRefused?: boolean;
  }): Promise<string>;
  password(options: { message: string; validate?: (value: string) => true | string }): Promise<string>;
  confirm(options: { message: string; default?: boolean }): Promise<boolean>;
}

function interrupted(error: unknown): never {
  throw /^(Exit|Abort|Cancel)PromptError$/.test((error as Error)?.name)
    ? new InterruptedError('Cancelled at the prompt; nothing was sent.')
    : error;
}

/** Stands in for columns that are taken before or after the text; never part of our own text. */
const HELD = '\ue000';

/** What @inquirer puts before a text: the prompt's "? */
const LEAD = 2;
/** Columns kept free at the end of a question for a short typed value (a confirm keeps 7: " (y/N) " and the answer). */
const INPUT_TAIL = 16;

/** The text wrapped at spaces so that, with `lead` columns before it and `tail` after it, no line reaches the terminal's last column. */
export function fitToTerminal(text: string, columns: number, { lead = 0, tail = 0, hangingIndent = 0 }) {
  // The lead and the tail are glued to the first and last word, so they move with them.
  return wrapWords(HELD.repeat(lead) + text + HELD.repeat(tail), Math.max(10, columns - 1), {
    hangingIndent,
  }).replaceAll(HELD, '');
}

export function createInquirerPrompter(io: Io, signal: AbortSignal, env: Env): Prompter {
  const context = { input: io.stdin, output: io.stderr, signal };
  // Every text a prompt shows (question, choices, refusals) passes the untrusted-text filter: a market name or reference comes from the server.
  const fitPrompt = (text: string, options: Parameters<typeof fitToTerminal>[2]) =>
    fitToTerminal(safeStyled(text), terminalColumns(io.stderr, io.stderrIsTTY, env), {
      hangingIndent: LEAD,
      ...options,
    });
  const fitError = (result: true | string) => (result === true ? true : fitPrompt(result, { lead: LEAD }));
  /** One @inquirer prompt, its message fitted with `tail` columns kept after it. */
  const ask = async <T, C extends { message: string }>(kind: keyof Prompter, config: C, tail: number) => {
    const prompt = (await import('@inquirer/prompts'))[kind] as (config: object, context: object) => Promise<T>;
    return prompt({ ...config, message: fitPrompt(config.message, { lead: LEAD, tail }) }, context).catch(interrupted);
  };
  return {
    select: (options) => {
      const longestShort = Math.max(0, ...options.choices.map((choice) => (choice.short ?? choice.name).length));
      const choices = options.choices.map(({ indent = 0, ...choice }) => ({
        ...choice,
        // What stays on screen once chosen.
        ...(choice.short !== undefined && { short: safeText(choice.short) }),
        name: fitPrompt(choice.name, { lead: LEAD, hangingIndent: LEAD + indent }),
        description: choice.description && fitPrompt(choice.description, { hangingIndent: 0 }),
      }));
      return ask('select', { ...options, choices }, Math.min(longestShort + 1, INPUT_TAIL));
    },
    input: ({ validate, wipeRefused, ...options }) =>
      ask(
        'input',
        {
          ...options,
          validate: validate && (async (value: string) => fitError(await validate(value))),
          ...(wipeRefused && { theme: { validationFailureMode: 'clear' } }),
        },
        INPUT_TAIL + (options.default === undefined ? 0 : options.default.length + 3),
      ),
    password: ({ validate, ...options }) =>
      ask(
        'password',
        { ...options, mask: '*', validate: validate && ((value: string) => fitError(validate(value))) },
        INPUT_TAIL,
      ),
    confirm: (options) => ask('confirm', { ...options, default: options.default ?? false }, 7),
  };
}

// Prompts behind an interface so that a unit test can script the answers; the real one is
// @inquirer/prompts on the context's own streams. Ctrl-C at a prompt becomes InterruptedError.
import { InterruptedError } from '../errors.js';
import type { Io } from './terminal.js';

export interface Choice<T> {
  name: string;
  /** What the answered prompt shows once chosen (default: name). */
  short?: string;
  value: T;
  description?: string;
}

export interface Prompter {
  select<T>(options: { message: string; choices: Choice<T>[]; default?: T }): Promise<T>;
  input(options: { message: string; default?: string; validate?: (value: string) => true | string | Promise<true | string> }): Promise<string>;
  password(options: { message: string; validate?: (value: string) => true | string }): Promise<string>;
  confirm(options: { message: string; default?: boolean }): Promise<boolean>;
}

function interrupted(error: unknown): never {
  const name = (error as Error)?.name;
  if (name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'CancelPromptError') {
    throw new InterruptedError('Cancelled at the prompt; nothing was sent.');
  }
  throw error;
}

export function createInquirerPrompter(io: Io, signal: AbortSignal): Prompter {
  const context = { input: io.stdin, output: io.stderr, signal };
  const load = () => import('@inquirer/prompts');
  return {
    async select(options) {
      const { select } = await load();
      return select({ message: options.message, choices: options.choices, default: options.default }, context).catch(interrupted);
    },
    async input(options) {
      const { input } = await load();
      return input({ message: options.message, default: options.default, validate: options.validate }, context).catch(interrupted);
    },
    async password(options) {
      const { password } = await load();
      return password({ message: options.message, mask: '*', validate: options.validate }, context).catch(interrupted);
    },
    async confirm(options) {
      const { confirm } = await load();
      return confirm({ message: options.message, default: options.default ?? false }, context).catch(interrupted);
    },
  };
}

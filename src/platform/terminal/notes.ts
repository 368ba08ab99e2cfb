// Notes: the lines for the operator beside the data — hints, warnings, what a table had to hide.
import type { ChalkInstance } from 'chalk';
import { asRun, type Invocation } from '../../core/program.js';
import { safeStyled } from '../../core/security/safe-text.js';
import { wrapWords } from './width.js';

export class Notes {
  constructor(
    private readonly stderr: NodeJS.WritableStream,
    private readonly chalk: ChalkInstance,
    private readonly wrapAt: number | undefined,
    private readonly run: Invocation = {},
  ) {}

  note(text: string) {
    const named = asRun(text, this.run);
    const shown = this.wrapAt === undefined ? named : wrapWords(named, this.wrapAt);
    this.stderr.write(`${safeStyled(shown)}\n`);
  }

  warn(text: string) {
    this.note(this.chalk.yellow(text));
  }

  success(text: string) {
    this.note(this.chalk.green(text));
  }
}

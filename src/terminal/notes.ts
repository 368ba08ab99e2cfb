// Notes: the lines for the operator beside the data — hints, warnings, what a table had to hide.
// Always on stderr (stdout holds only data), in every format; word-wrapped to the terminal's width
// when a person reads them (the table format).
import type { ChalkInstance } from 'chalk';
import { asRun, type Invocation } from '../program.js';
import { safeStyled } from '../security/safe-text.js';
import { wrapWords } from './width.js';

export class Notes {
  constructor(
    private readonly stderr: NodeJS.WritableStream,
    private readonly chalk: ChalkInstance,
    /** The width to wrap at; undefined: lines are written as they are (scripts read them whole). */
    private readonly wrapAt: number | undefined,
    /** How the user runs hedge: every `hedge …` a note quotes is written so. */
    private readonly run: Invocation = {},
  ) {}

  note(text: string): void {
    const named = asRun(text, this.run);
    const shown = this.wrapAt === undefined ? named : wrapWords(named, this.wrapAt);
    this.stderr.write(`${safeStyled(shown)}\n`);
  }

  warn(text: string): void {
    this.note(this.chalk.yellow(text));
  }

  success(text: string): void {
    this.note(this.chalk.green(text));
  }
}

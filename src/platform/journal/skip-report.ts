// What a command says about journal lines it had to skip (a crash mid-write, a hand edit).
import type { SkippedLine } from './entry.js';

export function sayEachSkipOnce(warn: (text: string) => void): (skip: SkippedLine & { file?: string }) => void {
  const said = new Set<string>();
  return (skip) => {
    if (skip.reason.startsWith('incomplete last line')) return;
    const where = `${skip.file ?? 'journal'}:${skip.line}`;
    if (said.has(where)) return;
    said.add(where);
    warn(`Journal line skipped: ${where} (${skip.reason}).`);
  };
}

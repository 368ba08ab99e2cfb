// What a command says about journal rows it had to skip (a crash mid-write, a hand edit, a row no hedge wrote).
import type { Skipped } from './entry.js';

export function sayEachSkipOnce(warn: (text: string) => void) {
  const said = new Set<string>();
  return (skip: Skipped) => {
    if (skip.reason.startsWith('incomplete last line')) return;
    // A store's row id is whatever its writer put there: only its start is named.
    const where =
      'row' in skip ? `${skip.store} row ${skip.row.slice(0, 64)}` : `${skip.file ?? 'journal'}:${skip.line}`;
    if (said.has(where)) return;
    said.add(where);
    warn(`Journal ${'row' in skip ? 'row' : 'line'} skipped: ${where} (${skip.reason}).`);
  };
}

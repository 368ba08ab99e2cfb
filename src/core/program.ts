// How hedge names itself in every command line it suggests (hints, the start screen, help examples): as the user can run it again.
import { realpathSync, statSync } from 'node:fs';
import { basename, delimiter, isAbsolute, join, relative } from 'node:path';

/** What a suggested command line starts with: the program as run, and the flags that chose the environment. */
export interface Invocation {
  program?: string;
  demo?: boolean;
  profile?: string;
}

function realPath(path: string) {
  try {
    // Most PATH folders lack the name: an error thrown for each costs more than the search.
    return statSync(path, { throwIfNoEntry: false })?.isFile() ? realpathSync(path) : undefined;
  } catch {
    // A folder this user cannot look into: the name is not found there.
  }
}

/** The program as the user can type it again, from the script the process was started with: its bare name when that name (or `hedge`) on PATH runs this same file, as once installed; otherwise its path from the working directory (`./bin/hedge.js` in a checkout). */
export function invokedAs(script: string | undefined, cwd: string, searchPath = '') {
  const self = script === undefined ? undefined : realPath(script);
  if (script === undefined || self === undefined) return 'hedge';
  const dirs = searchPath.split(delimiter).filter(Boolean);
  // The shell runs the first one on PATH.
  for (const name of new Set([basename(script), 'hedge']))
    if (dirs.map((dir) => realPath(join(dir, name))).find((found) => found !== undefined) === self) return name;
  const fromHere = relative(cwd, script);
  return shellWord(isAbsolute(fromHere) || fromHere.startsWith('..') ? script : `./${fromHere}`);
}

/** A word of a suggested command line (a path, a file, a deal reference) as the shell reads it back: as it is when plain, else in single quotes. */
export function shellWord(text: string) {
  return /^[\w./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A command line to suggest: `./bin/hedge.js --demo hedges hdg_1 --wait`. */
export function hedgeCommandLine(run: Invocation, words: readonly string[]) {
  // The flags that chose the environment, repeated in every suggested command: `--demo`, `--profile NAME`, or none.
  const flags = run.demo ? ['--demo'] : run.profile !== undefined ? ['--profile', run.profile] : [];
  return [run.program ?? 'hedge', ...flags, ...words].join(' ');
}

/** Every `hedge …` a text quotes in backticks, as the user runs it: the program as run, and the flags that chose the environment once (a quote that names its own environment keeps it). */
export function asRun(text: string, run: Invocation) {
  return text.replace(/`hedge (?=(--demo\b|--profile\b)?)/g, (_match, own: string | undefined) =>
    own ? `\`${run.program ?? 'hedge'} ` : `\`${hedgeCommandLine(run, [])} `,
  );
}

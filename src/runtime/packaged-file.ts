// Files that ship with hedge beside its code (the completion scripts): read from the package's
// folder, or, inside the single executable (npm run build:sea), from the assets built into it.
import { getAsset, isSea } from 'node:sea';

/** The text of a file shipped with hedge under `path` (e.g. `completions/hedge.bash`) when this is the single executable; undefined otherwise. */
export function builtInAsset(path: string): string | undefined {
  try {
    return isSea() ? getAsset(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

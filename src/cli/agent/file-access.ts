// What an agent's plan/apply may read.
import { lstat, realpath, stat } from 'node:fs/promises';
import { isAbsolute, parse, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { quotePath } from '../../core/input.js';
import { UsageError } from '../../core/errors.js';
import type { TargetFileSource } from '../../platform/runtime/context.js';
import { ReadRefused, describeReadError, readRegularFile } from '../../core/security/bounded-read.js';
import { INLINE_ROWS } from './catalogue.js';
import { messageOf } from '../../core/security/safe-text.js';

/** Where the kernel serves its own files: none of them is a target file. */
const PSEUDO_FILE_SYSTEMS = ['/proc', '/sys', '/dev'];

/** A target file is a few rows; anything bigger is not one. */
export const MAX_TARGET_FILE_BYTES = 1024 * 1024;

type Root = Awaited<ReturnType<typeof realRoot>>;

/** The client's roots as directories (file:// URIs only), or undefined when the client declares none. */
type ClientRoots = (signal: AbortSignal) => Promise<readonly string[] | undefined>;

/** Whether `path` is `root` or below it. */
const inside = (path: string, root: string) => {
  const rel = relative(root, path);
  return rel.split(sep)[0] !== '..' && !isAbsolute(rel);
};

async function realRoot(path: string) {
  const absolute = resolve(path);
  return { path: absolute, real: await realpath(absolute).catch(() => absolute) };
}

/** The server's roots: each --root must be a directory. */
export async function serverRoots(dirs: readonly string[] | undefined, cwd: string) {
  if (!dirs?.length) {
    const absolute = resolve(cwd);
    return parse(absolute).root === absolute ? [] : [await realRoot(absolute)];
  }
  for (const dir of dirs)
    if (!(await stat(resolve(cwd, dir)).catch(() => undefined))?.isDirectory())
      throw new UsageError(
        `--root: ${quotePath(dir)} is not a directory; expected a directory plan and apply may read target files from.`,
      );
  return Promise.all(dirs.map((dir) => realRoot(resolve(cwd, dir))));
}

/** file:///home/desk/books → /home/desk/books; other schemes are not directories here. */
export function clientRootPaths(uris: readonly string[]) {
  return uris.flatMap((uri) => {
    try {
      return uri.startsWith('file:') ? [fileURLToPath(uri)] : [];
    } catch {
      return [];
    }
  });
}

export class FileAccess {
  private clientRoots: ClientRoots = async () => undefined;

  constructor(
    readonly roots: readonly Root[],
    private readonly cwd: string,
  ) {}

  /** Reads nothing from any file: rows inline only (a toolbox made without roots). */
  static none() {
    return new FileAccess([], '/');
  }

  /** Set once the MCP client has said it has roots (roots/list is asked on each read). */
  useClientRoots(source: ClientRoots) {
    this.clientRoots = source;
  }

  /** How one call's command reads its target: the rows given inline, or a file under the roots. */
  sourceFor(rows: unknown, signal: AbortSignal): TargetFileSource {
    return {
      read: async (file) =>
        rows !== undefined
          ? { text: JSON.stringify({ targets: rows }), sourceName: INLINE_ROWS }
          : { text: await this.readUnderRoots(file, signal), sourceName: file },
    };
  }

  private async readUnderRoots(file: string, signal: AbortSignal) {
    let client;
    try {
      const paths = await this.clientRoots(signal);
      client = paths && (await Promise.all(paths.map(realRoot)));
    } catch (error) {
      // Fail closed: a client that declares roots but cannot list them grants nothing.
      throw new UsageError(
        `file: the MCP client did not list its roots (${messageOf(error)}); nothing was read. Give the target inline as rows.`,
      );
    }
    // Under one of the server's roots and, when the client declares roots, one of the client's; a path as
    // given may also be under a root as given (not resolved).
    const allowed = (path: string, asGiven = true) =>
      [this.roots, client].every(
        (roots) =>
          roots === undefined || roots.some((root) => inside(path, root.real) || (asGiven && inside(path, root.path))),
      );
    const shown = quotePath(file);
    const unreadable = (error: unknown) =>
      new UsageError(`file: ${shown} cannot be read: ${describeReadError(error)}.`);
    const notRegular = `file: ${shown} is not a regular file; expected a target file (CSV or JSON).`;
    const listed = (roots: readonly Root[]) => roots.map((root) => root.path).join(', ');
    const where = `${listed(this.roots) || 'none: start hedge mcp with --root DIR'}${client ? `; and the client's: ${listed(client) || 'none'}` : ''}`;
    const absolute = resolve(this.cwd, file);
    // Judged on the path as given first, so that a path outside is refused without touching it.
    if (!allowed(absolute))
      throw new UsageError(
        `file: ${shown} is outside the roots this server reads from (${where}); nothing was read. Give a file under them, or the target inline as rows.`,
      );
    // A symbolic link that leads out of the roots, or nowhere, gets one answer: whether its target exists outside is not for the agent to learn.
    const outsideByLink = `file: ${shown} leads through a symbolic link to no file under the roots this server reads from (${where}); nothing was read.`;
    let real;
    try {
      real = await realpath(absolute);
    } catch (error) {
      if ((await lstat(absolute).catch(() => undefined))?.isSymbolicLink()) throw new UsageError(outsideByLink);
      throw unreadable(error);
    }
    if (!allowed(real, false)) throw new UsageError(outsideByLink);
    // The kernel's own files (/proc, /sys, /dev) pose as regular files of size 0 and hold live secrets (a process's environment): never a target file, whatever the roots.
    if (PSEUDO_FILE_SYSTEMS.some((top) => inside(real, top))) throw new UsageError(notRegular);
    try {
      // Only a regular file (a FIFO would block the open, a device would never end), opened without following a link at the last step, and at most the bound.
      const bytes = await readRegularFile(real, {
        maxBytes: MAX_TARGET_FILE_BYTES,
        signal,
        noFollow: true,
        guard: 'steering',
      });
      return bytes.toString('utf8');
    } catch (error) {
      if (signal.aborted && !(error instanceof ReadRefused)) throw error;
      switch (error instanceof ReadRefused ? error.kind : undefined) {
        case 'not-regular':
          throw new UsageError(notRegular);
        case 'too-large':
          throw new UsageError(
            `file: ${shown} is larger than ${MAX_TARGET_FILE_BYTES / 1024} KiB; a target file is a few rows.`,
          );
        default:
          throw unreadable(error);
      }
    }
  }
}

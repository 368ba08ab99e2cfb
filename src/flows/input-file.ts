// Where a command's input file (a target file, an exposures file, a policy file) is read from: for
// an agent's call, only through its file gate (the server's roots, or rows given inline:
// src/agent/file-access.ts) and never the disk directly; at the CLI, the path as given (relative to
// the working directory), or stdin for `-`. Every reading problem is a UsageError (exit 2).
import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { CommandContext } from '../runtime/context.js';
import { safeText } from '../security/safe-text.js';

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** `what` names the file in messages ("target file"); `pipeExample` shows how to pipe it in. */
export async function readInputFile(ctx: CommandContext, file: string, what: string, pipeExample?: string): Promise<{ text: string; sourceName: string }> {
  if (ctx.targetFiles) return ctx.targetFiles.read(file);
  if (ctx.origin === 'agent') throw new UsageError(`file: this call reads no ${what} from the disk; it is read only under the roots the server was started with.`);
  if (file === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError(`the ${what} is - (stdin), but stdin is a terminal; pipe the file in${pipeExample ? ` (\`${pipeExample}\`)` : ''} or name it.`);
    return { text: await readAll(ctx.io.stdin), sourceName: 'stdin' };
  }
  try {
    return { text: await readFile(file, 'utf8'), sourceName: file };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : code === 'EACCES' ? 'permission denied' : String(code ?? error);
    throw new UsageError(`cannot read the ${what} ${safeText(file)}: ${why}.`);
  }
}

// Where plan, apply, keep and exposures read their input file (src/flows/input-file.ts): an
// agent's call only through its file gate, never the disk directly — even for a path that exists
// (issue 35: the cap check once read `./rows` from disk) — and the CLI the path as given.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { readInputFile } from '../../src/flows/input-file.js';
import { CommandContext, type TargetFileSource } from '../../src/runtime/context.js';
import { makeChalk } from '../../src/ui/color.js';
import { Output } from '../../src/ui/output.js';
import { tempDir } from '../support/hedge-cli.js';

const folder = tempDir('hedge-input-file-');
afterAll(() => folder.remove());
const file = join(folder.path, 'exposures.csv');
writeFileSync(file, 'id,market,type,amount,currency,due\n');

function context(origin: 'cli' | 'agent', targetFiles?: TargetFileSource): CommandContext {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false };
  return new CommandContext({
    io,
    env: {},
    globals: { json: true, header: true, demo: false, yes: false, input: false, color: false, verbose: false },
    clock: { now: () => 0, sleep: async () => {} },
    signal: new AbortController().signal,
    output: new Output({ mode: 'json', chalk: makeChalk(false), streams: io, now: () => 0 }),
    origin,
    targetFiles,
  });
}

describe('readInputFile', () => {
  it('at the CLI reads the path as given, and names a missing one', async () => {
    expect(await readInputFile(context('cli'), file, 'exposures file')).toEqual({ text: 'id,market,type,amount,currency,due\n', sourceName: file });
    await expect(readInputFile(context('cli'), join(folder.path, 'nope.csv'), 'exposures file')).rejects.toThrow(/cannot read the exposures file .*: no such file\./);
  });

  it("an agent's call without its file gate reads nothing from the disk, though the file exists", async () => {
    const refused = await readInputFile(context('agent'), file, 'exposures file').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toBe('file: this call reads no exposures file from the disk; it is read only under the roots the server was started with.');
  });

  it("an agent's call reads through its gate only", async () => {
    const asked: string[] = [];
    const gate: TargetFileSource = { read: async (name) => (asked.push(name), { text: 'gated', sourceName: 'rows' }) };
    expect(await readInputFile(context('agent', gate), file, 'target file')).toEqual({ text: 'gated', sourceName: 'rows' });
    expect(asked).toEqual([file]);
  });
});

// Where plan, apply, keep and exposures read their input file (src/features/write/input-file.ts): an
// agent's call only through its file gate, never the disk directly — even for a path that exists —
// and the CLI the path as given, bounded: a regular file only, refused without reading when it is a device (what is said
// instead); stdin read to the same bound; --timeout let go once the read ends (a FIFO, a file over the bound, a stop
// signal and --timeout ending a read that never ends: cli/read-input.test.ts).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { UsageError } from '../../src/core/errors.js';
import { MAX_PROBLEM_LINES, inputFileProblems, readInputFile } from '../../src/features/write/input-file.js';
import { MAX_INPUT_FILE_BYTES } from '../../src/core/security/bounded-read.js';
import { tempDir } from '../support/hedge-cli.js';
import { testContext, type TestContextOptions } from '../support/client.js';

const folder = tempDir('hedge-input-file-');
afterAll(() => folder.remove());
const file = join(folder.path, 'exposures.csv');
writeFileSync(file, 'id,market,type,amount,currency,due\n');

function context(origin: 'cli' | 'agent', { timeout, ...parts }: TestContextOptions & { timeout?: number } = {}) {
  return testContext({
    origin,
    ...parts,
    globals: { timeout },
  }).ctx;
}

/** The read was refused: a UsageError saying `message`. */
const refusal = (promise: Promise<unknown>, message: string) =>
  expect(promise).rejects.toThrow(new UsageError(message));

it("readInputFile at the CLI reads the path as given, and names a missing one; an agent's call reads through its gate only: without one, nothing from the disk, though the file exists", async () => {
  expect(await readInputFile(context('cli'), file, 'exposures file')).toEqual({
    text: 'id,market,type,amount,currency,due\n',
    sourceName: file,
  });
  await expect(readInputFile(context('cli'), join(folder.path, 'nope.csv'), 'exposures file')).rejects.toThrow(
    /cannot read the exposures file .*: no such file\./,
  );

  await refusal(
    readInputFile(context('agent'), file, 'exposures file'),
    'file: this call reads no exposures file from the disk; it is read only under the roots the server was started with.',
  );
  const asked: string[] = [];
  const gate = { read: async (name: string) => (asked.push(name), { text: 'gated', sourceName: 'rows' }) };
  expect([await readInputFile(context('agent', { targetFiles: gate }), file, 'target file'), asked]).toEqual([
    { text: 'gated', sourceName: 'rows' },
    [file],
  ]);
});

describe('readInputFile at the CLI: bounded', () => {
  it.skipIf(!existsSync('/dev/zero'))(
    'a device (/dev/zero, which never ends) is refused without reading it',
    async () => {
      await refusal(
        readInputFile(context('cli'), '/dev/zero', 'exposures file'),
        'cannot read the exposures file /dev/zero: it is a device, not a regular file; expected a regular file (to read a pipe, give - and redirect the pipe to stdin).',
      );
    },
  );

  // One over the bound is refused before it is read (a sparse file of 64 GiB answers at once): test/cli/read-input.test.ts.
  it('a file of exactly the bound is read; stdin is read to the same bound, then let go; a read that ends in time cancels its --timeout (nothing left pending on the clock)', async () => {
    const full = join(folder.path, 'full.csv');
    writeFileSync(full, Buffer.alloc(MAX_INPUT_FILE_BYTES, 'a'));
    expect((await readInputFile(context('cli'), full, 'target file')).text).toHaveLength(MAX_INPUT_FILE_BYTES);

    const stdin = new PassThrough();
    const reading = readInputFile(context('cli', { stdin }), '-', 'target file');
    stdin.write(Buffer.alloc(MAX_INPUT_FILE_BYTES, 'a'));
    stdin.write('b');
    await refusal(
      reading,
      'cannot read the target file on stdin: it holds more than 4 MiB, the most an input file may hold; split it, or keep the rows that matter.',
    );
    expect(stdin.destroyed).toBe(true);

    const piped = new PassThrough();
    let cancelled = false;
    const clock = {
      now: () => 0,
      sleep: (_ms: number, signal?: AbortSignal) =>
        new Promise<void>((_resolve, reject) =>
          signal?.addEventListener('abort', () => ((cancelled = true), reject(signal.reason)), { once: true }),
        ),
    };
    const ended = readInputFile(context('cli', { stdin: piped, timeout: 5, clock }), '-', 'target file');
    piped.end('market,side,notional_usd,tenor_days\n');
    expect(await ended).toEqual({ text: 'market,side,notional_usd,tenor_days\n', sourceName: 'stdin' });
    expect(cancelled).toBe(true);
  });
});

// Thirty problems (the count of all, the first twenty, then how many more): test/cli/read-input.test.ts, end to end.
it(`inputFileProblems: ${MAX_PROBLEM_LINES} problems are all listed, under the line that counts them, with no count of more`, () => {
  const problems = Array.from({ length: 20 }, (_, index) => ({
    line: index + 2,
    message: 'side: the value is not allowed; expected buy or sell.',
  }));
  const lines = inputFileProblems('book.csv', problems, 'Fix them.').message.split('\n');
  expect([lines.length, lines[0], lines.at(-1)]).toEqual([
    21,
    'book.csv: 20 problems; nothing was read or sent.',
    'book.csv:21: side: the value is not allowed; expected buy or sell.',
  ]);
});

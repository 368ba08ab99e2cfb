// The journal across real processes: writers appending at once, a writer killed with SIGKILL in
// the middle of its appends, and the file modes under umask 000. The children run the journal
// module bundled here with esbuild (test/support/children/journal-writer.cjs loads it).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { useChildBundle } from '../support/children/child-bundle.js';
import { openJournal, type SkippedLine } from '../../src/platform/journal/index.js';
import { openFields } from './local-journal.js';
import { until } from '../support/polling.js';

const CHILD = fileURLToPath(new URL('../support/children/journal-writer.cjs', import.meta.url));
/** Short, so that a lock left by a killed writer is taken over quickly (the minimum the lock allows). */
const LOCK_STALE_MS = 2_000;
/** Writers racing on one journal, and entries each: every writer meets the others' appends, and the race fits a test's bound on two cores. */
const WRITERS = 10;
const ENTRIES = 25;
/** An active segment small enough to be rotated several times during the race. */
const ROTATE_BYTES = 4 * 1024;

const built = useChildBundle('src/platform/journal/index.ts', 'hedge-journal-processes-');

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

/** A writer of `options` (dir, writer, count, umask, rotateBytes; `barrier`: it waits, loaded, for its stdin to end). */
function startWriter(options: { barrier?: boolean; [option: string]: unknown }) {
  const child = spawn(
    process.execPath,
    [CHILD, JSON.stringify({ bundle: built.bundle, lockStaleMs: LOCK_STALE_MS, ...options })],
    { stdio: [options.barrier ? 'pipe' : 'ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'close').then(([code, signal]) => {
    running.delete(child);
    return { code, signal, stderr };
  });
  /** `has`: resolves once its output passes `test`; fails if it exits first. */
  return {
    child,
    output: () => stdout,
    exited,
    has: (test: (output: string) => boolean, what: string) => until(() => test(stdout), what, { process: exited }),
  };
}

function idsReported(output: string, word: 'begun' | 'updated') {
  return output
    .split('\n')
    .filter((line) => line.startsWith(`${word} `))
    .map((line) => line.slice(word.length + 1));
}

async function loadJournal(dir: string) {
  const skipped: SkippedLine[] = [];
  const entries = await openJournal({ dir, onSkip: (skip) => skipped.push(skip) }).list();
  return { entries, skipped };
}

function freshDir(name: string) {
  return join(mkdtempSync(join(built.scratch, `${name}-`)), 'state');
}

it(`several processes at once: ${WRITERS} writers × ${ENTRIES} entries (each begun then updated) with a small active segment: all present exactly once across the segment and the archives, every line whole`, async () => {
  const dir = freshDir('rotating');
  // Started together: each waits, loaded, until every one is ready, so their appends race from the first one on.
  const writers = Array.from({ length: WRITERS }, (_, writer) =>
    startWriter({ dir, writer, count: ENTRIES, rotateBytes: ROTATE_BYTES, barrier: true }),
  );
  await Promise.all(writers.map((writer) => writer.has((output) => output.startsWith('ready\n'), 'ready')));
  for (const writer of writers) writer.child.stdin!.end();
  // All exit 0, and quietly.
  const results = await Promise.all(writers.map((writer) => writer.exited));
  expect(results.map(({ code, stderr }) => ({ code, stderr }))).toEqual(writers.map(() => ({ code: 0, stderr: '' })));
  expect(readdirSync(join(dir, 'journal-archive')).length).toBeGreaterThanOrEqual(1);
  // What a rotation leaves is at most half the bound; appends after the last one add at most the bound again.
  expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8').length).toBeLessThanOrEqual(ROTATE_BYTES + 2 * 1024);

  // Every entry of every writer once (the journal read without a skipped line), in its final state,
  // each id the one its writer was told.
  const { entries, skipped } = await loadJournal(dir);
  expect(skipped).toEqual([]);
  expect(entries.map((entry) => entry.idempotency_key).sort()).toEqual(
    Array.from({ length: WRITERS }, (_, writer) =>
      Array.from({ length: ENTRIES }, (_, index) => `writer-${writer}-${index}`),
    )
      .flat()
      .sort(),
  );
  for (const entry of entries) {
    const [, writer, index] = entry.idempotency_key.split('-');
    expect([entry.outcome, entry.hedge_id]).toEqual(['filled', `hdg_${writer}_${index}`]);
  }
  expect(writers.flatMap((writer) => idsReported(writer.output(), 'begun')).sort()).toEqual(
    entries.map((entry) => entry.id).sort(),
  );
  // The writers' begins interleaved (more runs of one writer than there are writers): the history checked really was a race.
  const bySeq = [...entries].sort((a, b) => a.seq! - b.seq!).map((entry) => entry.idempotency_key.split('-')[1]);
  expect(new Set(entries.map((entry) => entry.seq)).size).toBe(WRITERS * ENTRIES);
  expect(bySeq.filter((writer, index) => writer !== bySeq[index - 1]).length).toBeGreaterThan(WRITERS);
  // Every lock was released: nothing but the journal and its archives is left in the folder.
  expect(readdirSync(dir).sort()).toEqual(['journal-archive', 'journal.jsonl']);
});

it('a writer killed with SIGKILL in the middle of its appends leaves a readable journal each time: everything reported on disk is there, at most the last line is torn', async () => {
  const dir = freshDir('killed');
  const reported = new Map<string, 'begun' | 'updated'>();
  let knownSkips: number[] = [];

  for (let round = 0; round < 3; round++) {
    const writer = startWriter({ dir, writer: round, count: null });
    const updates = 5 + 7 * round;
    await writer.has((output) => idsReported(output, 'updated').length >= updates, `${updates} updates`);
    writer.child.kill('SIGKILL');
    expect((await writer.exited).signal).toBe('SIGKILL');
    for (const state of ['begun', 'updated'] as const)
      for (const id of idsReported(writer.output(), state)) reported.set(id, state);

    const { entries, skipped } = await loadJournal(dir);
    const byId = new Map(entries.map((entry) => [entry.id, entry]));
    for (const [id, state] of reported) {
      // A begun entry may have been updated just before the kill, without the child saying so.
      expect(byId.get(id)?.outcome, `entry ${id}`).toEqual(
        state === 'updated' ? 'filled' : expect.stringMatching(/^(pending|filled)$/),
      );
    }
    const newSkips = skipped.map((skip) => skip.line).filter((line) => !knownSkips.includes(line));
    expect(newSkips.length).toBeLessThanOrEqual(1);
    if (newSkips.length === 1) {
      const lineCount = readFileSync(join(dir, 'journal.jsonl'), 'utf8').replace(/\n$/, '').split('\n').length;
      expect(newSkips[0]).toBe(lineCount);
    }
    knownSkips = skipped.map((skip) => skip.line);
  }

  // The next writer (this process) takes over any lock the last one died holding, and its entry
  // starts on a line of its own.
  const journal = openJournal({ dir, lockStaleMs: LOCK_STALE_MS });
  const after = await journal.begin(openFields({ idempotency_key: 'after-the-kills' }));
  const { entries, skipped } = await loadJournal(dir);
  expect([entries[0]?.id, skipped.map((skip) => skip.line)]).toEqual([after.id, knownSkips]);
  expect(entries.length).toBeGreaterThanOrEqual(reported.size + 1);
});

it('file modes: folder 0700 and file 0600 even under umask 000', async () => {
  const dir = join(freshDir('modes'), 'nested', 'hedge');
  const writer = startWriter({ dir, writer: 0, count: 1, umask: 0 });
  expect(await writer.exited).toEqual({ code: 0, signal: null, stderr: '' });
  expect(
    [dir, join(dir, '..'), join(dir, 'journal.jsonl')].map((path) => (statSync(path).mode & 0o777).toString(8)),
  ).toEqual(['700', '700', '600']);
});

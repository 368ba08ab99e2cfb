// The journal across real processes: ten CLIs appending at once, a writer killed with SIGKILL in
// the middle of its appends, and the file modes under umask 000. The children run the journal
// module bundled here with esbuild (test/support/children/journal-writer.cjs loads it).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { useChildBundle } from '../support/children/child-bundle.js';
import { openJournal, type JournalEntry, type SkippedLine } from '../../src/platform/journal/index.js';

const CHILD = fileURLToPath(new URL('../support/children/journal-writer.cjs', import.meta.url));
/** Short, so that a lock left by a killed writer is taken over quickly (the minimum the lock allows). */
const LOCK_STALE_MS = 2_000;

const built = useChildBundle('src/platform/journal/index.ts', 'hedge-journal-processes-');

const running = new Set<ChildProcess>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

interface Writer {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

function startWriter(options: {
  dir: string;
  writer: number;
  count: number | null;
  umask?: number;
  rotateBytes?: number;
}): Writer {
  const child = spawn(
    process.execPath,
    [CHILD, JSON.stringify({ bundle: built.bundle, lockStaleMs: LOCK_STALE_MS, ...options })],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
    child.on('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal, stderr });
    });
  });
  return { child, output: () => stdout, exited };
}

/** Resolves once the writer has reported `count` updates on disk; fails if it exits first. */
function afterUpdates(writer: Writer, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (idsReported(writer.output(), 'updated').length >= count) {
        writer.child.stdout!.off('data', check);
        resolve();
      }
    };
    writer.child.stdout!.on('data', check);
    writer.exited.then(({ code, stderr }) =>
      reject(new Error(`writer exited (${code}) before ${count} updates: ${stderr}`)),
    );
    check();
  });
}

function idsReported(output: string, word: 'begun' | 'updated'): string[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith(`${word} `))
    .map((line) => line.slice(word.length + 1));
}

async function loadJournal(dir: string): Promise<{ entries: JournalEntry[]; skipped: SkippedLine[] }> {
  const skipped: SkippedLine[] = [];
  const entries = await openJournal({ dir, onSkip: (skip) => skipped.push(skip) }).list();
  return { entries, skipped };
}

function freshDir(name: string): string {
  return join(mkdtempSync(join(built.scratch, `${name}-`)), 'state');
}

describe('several processes at once', () => {
  it('10 writers × 50 entries (each begun then updated): all 500 present exactly once, every line whole', async () => {
    const dir = freshDir('concurrent');
    const writers = Array.from({ length: 10 }, (_, writer) => startWriter({ dir, writer, count: 50 }));
    const results = await Promise.all(writers.map((writer) => writer.exited));
    expect(results.map(({ code, stderr }) => ({ code, stderr }))).toEqual(
      Array.from({ length: 10 }, () => ({ code: 0, stderr: '' })),
    );

    const text = readFileSync(join(dir, 'journal.jsonl'), 'utf8');
    const lines = text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(1000);
    const events = lines.map((line) => JSON.parse(line) as { id: string });
    expect(new Set(events.map((event) => event.id)).size).toBe(500);

    const { entries, skipped } = await loadJournal(dir);
    expect(skipped).toEqual([]);
    expect(entries).toHaveLength(500);
    const keys = entries.map((entry) => entry.idempotency_key).sort();
    const expected = Array.from({ length: 10 }, (_, writer) =>
      Array.from({ length: 50 }, (_, index) => `writer-${writer}-${index}`),
    )
      .flat()
      .sort();
    expect(keys).toEqual(expected);
    for (const entry of entries) {
      const [, writer, index] = entry.idempotency_key.split('-');
      expect([entry.outcome, entry.hedge_id]).toEqual(['filled', `hdg_${writer}_${index}`]);
    }
    expect(writers.flatMap((writer) => idsReported(writer.output(), 'begun')).sort()).toEqual(
      entries.map((entry) => entry.id).sort(),
    );
    // Every lock was released: nothing but the journal is left in the folder.
    expect(readdirSync(dir)).toEqual(['journal.jsonl']);
  });
});

describe('several processes at once while the active segment is rotated into archives', () => {
  it('10 writers × 50 entries with a small active segment: all 500 present exactly once across the segment and the archives', async () => {
    const dir = freshDir('rotating');
    const writers = Array.from({ length: 10 }, (_, writer) =>
      startWriter({ dir, writer, count: 50, rotateBytes: 24 * 1024 }),
    );
    const results = await Promise.all(writers.map((writer) => writer.exited));
    expect(results.map(({ code, stderr }) => ({ code, stderr }))).toEqual(
      Array.from({ length: 10 }, () => ({ code: 0, stderr: '' })),
    );
    expect(readdirSync(join(dir, 'journal-archive')).length).toBeGreaterThanOrEqual(1);
    // What a rotation leaves is at most half the bound; appends after the last one add at most the bound again.
    expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8').length).toBeLessThanOrEqual(24 * 1024 + 2 * 1024);

    const { entries, skipped } = await loadJournal(dir);
    expect(skipped).toEqual([]);
    expect(entries).toHaveLength(500);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(500);
    for (const entry of entries) {
      const [, writer, index] = entry.idempotency_key.split('-');
      expect([entry.outcome, entry.hedge_id]).toEqual(['filled', `hdg_${writer}_${index}`]);
    }
    expect(writers.flatMap((writer) => idsReported(writer.output(), 'begun')).sort()).toEqual(
      entries.map((entry) => entry.id).sort(),
    );
  });
});

describe('a writer killed with SIGKILL in the middle of its appends', () => {
  it('leaves a readable journal each time: everything reported on disk is there, at most the last line is torn', async () => {
    const dir = freshDir('killed');
    const reported = new Map<string, 'begun' | 'updated'>();
    let knownSkips: number[] = [];

    for (let round = 0; round < 3; round++) {
      const writer = startWriter({ dir, writer: round, count: null });
      await afterUpdates(writer, 5 + 7 * round);
      writer.child.kill('SIGKILL');
      expect((await writer.exited).signal).toBe('SIGKILL');
      for (const id of idsReported(writer.output(), 'begun')) reported.set(id, 'begun');
      for (const id of idsReported(writer.output(), 'updated')) reported.set(id, 'updated');

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
    const after = await journal.begin({
      environment: 'test',
      base_url_host: '127.0.0.1:9',
      key_id: '0123456789ab',
      command: 'close',
      request: { method: 'POST', path: '/hedges/close', body: { market: 'USDTNGN', side: 'buy' } },
      idempotency_key: 'after-the-kills',
    });
    const { entries, skipped } = await loadJournal(dir);
    expect(entries[0]?.id).toBe(after.id);
    expect(skipped.map((skip) => skip.line)).toEqual(knownSkips);
    expect(entries.length).toBeGreaterThanOrEqual(reported.size + 1);
  });
});

describe('file modes', () => {
  it('folder 0700 and file 0600 even under umask 000', async () => {
    const dir = join(freshDir('modes'), 'nested', 'hedge');
    const writer = startWriter({ dir, writer: 0, count: 1, umask: 0 });
    expect(await writer.exited).toEqual({ code: 0, signal: null, stderr: '' });
    expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(join(dir, '..')).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(join(dir, 'journal.jsonl')).mode & 0o777).toString(8)).toBe('600');
  });
});

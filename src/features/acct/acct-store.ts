// The accounts' own records (designations, events, imported rates), kept append-only in the state folder: each record
// carries the hash of the one before it, so an edit made outside hedge is found on the next read.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { UsageError } from '../../core/errors.js';
import { writeFileDurably } from '../../core/files/durable-write.js';
import { lockFile } from '../../core/files/file-lock.js';
import { describeReadError, makePrivateDir, readRegularFileSync } from '../../core/security/bounded-read.js';
import { readBoundedJson } from '../../core/security/json-keys.js';
import { canonicalJson } from '../../platform/journal/canonical-json.js';
import { journalDir } from '../../platform/journal/location.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import type { JsonObject } from '../../core/objects.js';

const KINDS = ['designation', 'event', 'rates'] as const;

const RECORD = z.object({
  seq: z.number(),
  kind: z.enum(KINDS),
  recorded_at: z.string(),
  body: z.record(z.string(), z.unknown()),
  prev: z.string(),
  hash: z.string(),
});
const FILE = z.object({ records: z.array(RECORD) });
export type AcctRecord = z.infer<typeof RECORD>;

const MAX_BYTES = 32 * 1024 * 1024;

const hashOf = (record: Omit<AcctRecord, 'hash'>) =>
  createHash('sha256')
    .update(
      record.prev +
        canonicalJson({ seq: record.seq, kind: record.kind, recorded_at: record.recorded_at, body: record.body }),
    )
    .digest('hex');

const storePath = (ctx: Pick<CommandContext, 'env'>) => join(journalDir(ctx.env), 'acct', 'records.json');

/** Every record, its chain checked; none when nothing was recorded yet. */
export function readRecords(ctx: Pick<CommandContext, 'env'>): AcctRecord[] {
  const path = storePath(ctx);
  if (!existsSync(path)) return [];
  let text: string;
  try {
    // Owner-checked as the journal is: only this user (or root) may have changed what the accounts rest on.
    text = readRegularFileSync(path, { maxBytes: MAX_BYTES, guard: 'trusted', noFollow: true }).toString('utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the accounting records ${path}: ${describeReadError(error)}.`);
  }
  const read = readBoundedJson(text, { maxBytes: MAX_BYTES, maxDepth: 16 }, FILE);
  if (typeof read === 'string') throw new UsageError(`The accounting records ${path} are not hedge's: ${read}.`);
  let prev = '';
  read.records.forEach((record, index) => {
    if (record.seq !== index + 1 || record.prev !== prev || hashOf(record) !== record.hash)
      throw new UsageError(
        `The accounting records ${path} were changed outside hedge: record ${index + 1}'s hash does not follow from the records before it. Restore the file from a backup; hedge never edits a record.`,
      );
    prev = record.hash;
  });
  return read.records;
}

/** Appends records under the file lock; `bodies` may be made from every record there, and a refusal (a throw) writes
 * nothing, as does an empty list. */
export async function appendRecords(
  ctx: Pick<CommandContext, 'env' | 'clock'>,
  kind: (typeof KINDS)[number],
  make: (records: AcctRecord[]) => readonly JsonObject[],
) {
  const path = storePath(ctx);
  makePrivateDir(join(path, '..'));
  const release = await lockFile(path, { staleMs: 10_000, sleep: (ms) => ctx.clock.sleep(ms) });
  try {
    const records = readRecords(ctx);
    const bodies = make(records);
    if (!bodies.length) return [];
    const recordedAt = new Date(ctx.clock.now()).toISOString();
    for (const body of bodies) {
      const unsealed = {
        seq: records.length + 1,
        kind,
        recorded_at: recordedAt,
        body,
        prev: records.at(-1)?.hash ?? '',
      };
      records.push({ ...unsealed, hash: hashOf(unsealed) });
    }
    writeFileDurably(path, `${JSON.stringify({ records }, null, 1)}\n`);
    return records.slice(-bodies.length);
  } finally {
    await release();
  }
}

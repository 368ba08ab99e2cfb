// A keeper's heartbeat file, in its per-user keeper folder (the team store keeps its own: postgres-store.ts).
import { dirname, join } from 'node:path';
import { writeFileDurably } from '../../core/files/durable-write.js';
import { refuseKeyShaped, sha256Hex } from './row-integrity.js';
import { ensureDir } from './journal.js';
import {
  describeReadError,
  MAX_INPUT_FILE_BYTES,
  ReadRefused,
  readRegularFileSync,
  refuseUntrustedFolder,
} from '../../core/security/bounded-read.js';
import { UsageError } from '../../core/errors.js';
import { ANY_ROW, readRow, ROW_BOUNDS } from './entry.js';

const REVISION_FIELD = 'heartbeat_revision';

/** A heartbeat names each row a keeper keeps, so it may be larger than a journal row, never deeper. */
export const HEARTBEAT_BOUNDS = { ...ROW_BOUNDS, maxBytes: MAX_INPUT_FILE_BYTES };

export function heartbeatFile(dir: string, scope: string) {
  return join(dir, `${sha256Hex(scope, 24)}.heartbeat.json`);
}

/** The file's body (without the revision field) and revision, or undefined when absent or unreadable (`skipped` is told why a file there is not JSON). */
export function readHeartbeatFile(path: string, skipped?: (problem: string) => void) {
  // Read as the journal is: its folder and the file only when this user's (or root's) and no other may change them.
  refuseUntrustedFolder(dirname(path));
  let text;
  try {
    text = readRegularFileSync(path, {
      maxBytes: HEARTBEAT_BOUNDS.maxBytes,
      noFollow: true,
      guard: 'trusted',
    }).toString('utf8');
  } catch (error) {
    if (error instanceof ReadRefused && (error.kind === 'not-yours' || error.kind === 'open-to-others'))
      throw new UsageError(`Cannot use the keeper heartbeat ${path}: ${describeReadError(error)}.`);
    return;
  }
  const value = readRow(text, ANY_ROW, HEARTBEAT_BOUNDS);
  // A file cut short by a crash of an older writer, or edited by hand: no heartbeat.
  if (typeof value === 'string') {
    skipped?.(value);
    return;
  }
  const { [REVISION_FIELD]: revision, ...body } = value;
  return {
    body,
    revision: typeof revision === 'number' && Number.isSafeInteger(revision) && revision > 0 ? revision : 0,
  };
}

/** Replaces the file whole; the revision is one more than the file's. Only the keeper holding the scope's lock writes it. */
export function writeHeartbeatFile(path: string, body: object) {
  refuseKeyShaped(body, 'write a keeper heartbeat');
  const revision = (readHeartbeatFile(path)?.revision ?? 0) + 1;
  ensureDir(dirname(path));
  writeFileDurably(path, `${JSON.stringify({ ...body, [REVISION_FIELD]: revision })}\n`);
  return { revision };
}

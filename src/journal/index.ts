// The action journal's public surface.
export { canonicalJson } from './canonical-json.js';
export {
  isUnresolved,
  NOT_WAITED_MESSAGE,
  OUTCOMES,
  type BeginFields,
  type JournalEntry,
  type JournalEnvironment,
  type JournalPatch,
  type JournalRequest,
  type Outcome,
  type SideAfter,
  type SkippedLine,
} from './entry.js';
export { describeHolder, type Holder } from './holder.js';
export {
  isTeamJournal,
  type Hold,
  type HoldResult,
  type ImportOutcome,
  type Journal,
  type JournalLocker,
  type KeeperHeartbeats,
  type StoredHeartbeat,
  type JournalRecords,
  type ListOptions,
  type LocalJournal,
  type SameRequest,
  type TeamJournal,
} from './backend.js';
export { matchesRequest, openJournal, type OpenJournalOptions } from './journal.js';
export { JournalError } from './journal-error.js';
export { keyFingerprint } from './key-guard.js';
export { JOURNAL_FILE_NAME, journalDir } from './location.js';
export { ARCHIVE_DIR_NAME } from './segments.js';

// The action journal's public surface.
export { canonicalJson } from './canonical-json.js';
export {
  isUnresolved,
  OUTCOMES,
  type BeginFields,
  type JournalEntry,
  type JournalEnvironment,
  type JournalPatch,
  type JournalRequest,
  type Outcome,
  type SkippedLine,
} from './entry.js';
export { matchesRequest, openJournal, type Journal, type ListOptions, type OpenJournalOptions, type SameRequest } from './journal.js';
export { JournalError } from './journal-error.js';
export { keyFingerprint } from './key-guard.js';
export { JOURNAL_FILE_NAME, journalDir } from './location.js';

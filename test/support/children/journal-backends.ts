// Both journal backends in one module, bundled by test/journal/conformance.test.ts for its child
// processes (test/support/children/journal-process.cjs): the child opens whichever it is told.
export { openJournal } from '../../../src/platform/journal/journal.js';
export { openPostgresJournal } from '../../../src/platform/journal/postgres/postgres-store.js';

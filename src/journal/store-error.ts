import { JournalError } from './journal-error.js';

/**
 * The team journal store cannot be used: unreachable, refusing the login, a schema it cannot
 * create or does not know. Exit 13 (`state`): a write is refused before anything is sent. After a
 * send, the write flow reports it as "sent, outcome not recorded" (a JournalError) with the key.
 */
export class JournalStoreError extends JournalError {
  /** The store's address with any password redacted. */
  readonly store: string;
  constructor(message: string, init: { store: string; hint?: string; cause?: unknown }) {
    super(message, { hint: init.hint, cause: init.cause });
    this.store = init.store;
  }

  /** A state error that names the store (redacted) rather than a path. */
  override facts() {
    return { exitCode: 13, details: { store: this.store } };
  }
}

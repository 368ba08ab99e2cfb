import { StateError } from '../../core/errors.js';

/** The journal cannot be read or written (unwritable, a symbolic link, a lock held too long). */
export class JournalError extends StateError {}

/** The team store failed: named by its address (password redacted) rather than a path. */
export class JournalStoreError extends JournalError {
  /** The store's address with any password redacted. */
  readonly store: string;
  constructor(message: string, init: { store: string; hint?: string; cause?: unknown }) {
    super(message, init);
    this.store = init.store;
  }

  /** A state error that names the store (redacted) rather than a path. */
  override facts() {
    return { exitCode: 13, details: { store: this.store } };
  }
}

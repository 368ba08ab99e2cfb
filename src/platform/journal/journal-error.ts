import { StateError } from '../../core/errors.js';

/** The journal cannot be read or written (unwritable, a symbolic link, a lock held too long). */
export class JournalError extends StateError {}

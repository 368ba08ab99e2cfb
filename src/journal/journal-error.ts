import { StateError } from '../errors.js';

/**
 * The journal cannot be read or written (unwritable, a symbolic link, a lock held too long), or was
 * asked for something it cannot do: local state that cannot be used (exit 13), the path named.
 */
export class JournalError extends StateError {}

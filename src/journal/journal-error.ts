import { HedgeError } from '../errors.js';

/** The journal cannot be read or written, or was asked for something it cannot do. Exit 1. */
export class JournalError extends HedgeError {}

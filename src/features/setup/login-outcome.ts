// What `hedge login` did, as data (flows/login-save.ts returns it; commands/login.ts renders it).
// The key itself is never part of it: only its redacted form, which may be shown.
import type { KeyLocation } from '../../platform/config/key-store.js';
import type { Environment } from '../../core/security/secrets.js';

/** A keyring entry the key left that could not be removed: the person deletes it by hand. */
export interface KeyringLeftover {
  account: string;
  error: string;
}

/** A login that the server accepted and that was saved. */
export interface LoginSaved {
  profile: string;
  environment: Environment;
  baseUrl: string;
  /** The key as it may be shown (redactKey). */
  shownKey: string;
  keyAt: KeyLocation;
  /** Why the key is in the file although no --key-store was given: no keyring answered. */
  keyringFallback?: string;
  caFile: string | null;
  /** The profile's team store as it may be shown (password hidden); null: the local file. */
  journalShown: string | null;
  /** The profile is the current one after saving. */
  current: boolean;
  /** Another profile was current and stays so. */
  previousCurrent?: string;
  /** The profile's older keyring entry, when it could not be removed. */
  oldKeyringLeft?: KeyringLeftover;
}

/** `hedge login --move-key`: the key was already where it was asked to go, or it moved. */
export type KeyMove =
  | { moved: false; at: KeyLocation }
  | { moved: true; from: KeyLocation; to: KeyLocation; oldKeyringLeft?: KeyringLeftover };

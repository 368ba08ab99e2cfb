// Profiles kept with conf, validated with zod on every read.
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import type Conf from 'conf';
import { ConfigError, HedgeError } from '../../core/errors.js';
import { syncDirectory } from '../../core/files/durable-write.js';
import { isLockedError, lockFile } from '../../core/files/file-lock.js';
import {
  describeReadError,
  makePrivateDir,
  MAX_INPUT_FILE_BYTES,
  ReadRefused,
  readRegularFileSync,
  refuseUntrustedFolder,
} from '../../core/security/bounded-read.js';
import { storeSchema, type StoreData } from './store-schema.js';
import { issueWords, parseBoundedJson } from '../../core/security/json-keys.js';

/** A holder that stopped refreshing its lock this long ago is dead (kill -9) and is taken over. */
const LOCK_STALE_MS = 3_000;
/** How long an update waits for a live holder (a login writes for milliseconds) before it says the store is locked. */
const LOCK_WAIT_MS = 12_000;

export class ProfileStore {
  readonly file: string;
  private conf: Conf<StoreData> | undefined;

  constructor(
    readonly dir: string,
    private readonly options: { lockWaitMs?: number } = {},
  ) {
    this.file = join(dir, 'config.json');
  }

  /** The whole store as it is on disk now (empty when there is no file yet). */
  read() {
    refuseUntrustedFolder(this.dir);
    let bytes;
    try {
      bytes = readRegularFileSync(this.file, { maxBytes: MAX_INPUT_FILE_BYTES, noFollow: true, guard: 'private' });
    } catch (error) {
      // No file yet reads as an empty store, as conf reads it.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return storeSchema.parse({});
      throw asConfigError(error, this.file, 'read');
    }
    return parseStoreText(bytes.toString('utf8'), this.file);
  }

  profile(name: string) {
    return this.read().profiles[name];
  }

  /** Read, change and write back under the lock. */
  async update(change: (data: StoreData) => void) {
    try {
      makePrivateDir(this.dir);
    } catch (error) {
      throw asConfigError(error, this.dir, 'write');
    }
    let release;
    try {
      // Taken over while held, nothing is lost.
      release = await lockFile(this.file, { staleMs: LOCK_STALE_MS, waitMs: this.options.lockWaitMs ?? LOCK_WAIT_MS });
    } catch (error) {
      if (isLockedError(error))
        throw new ConfigError(`The config store is locked by another hedge process (${this.file}.lock).`, {
          hint: 'Wait for it to finish and try again; a lock left by a process that died is taken over by itself within seconds.',
        });
      throw asConfigError(error, `${this.file}.lock`, 'write');
    }
    try {
      const data = this.read();
      change(data);
      const checked = storeSchema.parse(data);
      if (!this.conf) {
        const file = this.file;
        const { default: ConfStore } = await import('conf');
        try {
          this.conf = new ConfStore<StoreData>({
            cwd: this.dir,
            configName: 'config',
            configFileMode: 0o600,
            clearInvalidConfig: false,
            accessPropertiesByDotNotation: false,
            serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
            deserialize: (text) => parseStoreText(text, file),
          });
        } catch (error) {
          throw asConfigError(error, file, 'read');
        }
      }
      try {
        this.conf.store = checked;
        chmodSync(this.file, 0o600);
      } catch (error) {
        throw asConfigError(error, this.file, 'write');
      }
      // conf's rename is durable only once the folder is synced.
      syncDirectory(this.dir);
      return checked;
    } finally {
      await release();
    }
  }
}

function parseStoreText(text: string, file: string) {
  const parsed = parseBoundedJson(text);
  if (parsed.problem !== undefined)
    throw new ConfigError(
      `The config store ${file}${parsed.syntax ? ' is not valid JSON' : parsed.repeated ? `: ${parsed.problem}` : ` is JSON ${parsed.problem}`}.`,
      {
        hint: `Fix the file by hand, or move it away and run \`hedge login\` again (profiles in it would be lost).`,
      },
    );
  const result = storeSchema.safeParse(parsed.value);
  if (!result.success)
    throw new ConfigError(`The config store ${file} does not have the expected shape (${issueWords(result.error)}).`, {
      hint: 'Fix that entry by hand, or move the file away and run `hedge login` again.',
    });
  return result.data;
}

function asConfigError(error: unknown, file: string, action: 'read' | 'write') {
  // ConfigError, or the folder refused as the user's setting (exit 2).
  if (error instanceof HedgeError) return error;
  const refused = error instanceof ReadRefused || (error as NodeJS.ErrnoException).code === 'ELOOP';
  return new ConfigError(`Cannot ${action} the config store ${file}: ${describeReadError(error)}.`, {
    hint: refused
      ? 'hedge uses its config store only as a regular file, not a link, that is yours alone (as ssh its keys); if others could read it, renew the key it held.'
      : 'Check the folder exists and is writable, or point HEDGE_CONFIG_DIR at one that is.',
  });
}

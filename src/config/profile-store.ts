// Profiles kept with conf, validated with zod on every read. The file is 0600 in a 0700 folder,
// written by write-then-rename (conf uses `atomically`), and every read-modify-write holds a lock
// file so that two `hedge login` at once cannot lose each other's profile.
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import { ConfigError } from '../errors.js';
import { storeSchema, type StoreData, type StoredProfile } from './store-schema.js';

const LOCK_WAIT_MS = 5_000;
const LOCK_STALE_MS = 15_000;
const EMPTY_LOCK_STALE_MS = 1_000;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class ProfileStore {
  readonly dir: string;
  readonly file: string;
  private conf: Conf<StoreData> | undefined;

  constructor(dir: string) {
    this.dir = dir;
    this.file = join(dir, 'config.json');
  }

  private open(): Conf<StoreData> {
    if (this.conf) return this.conf;
    const file = this.file;
    try {
      this.conf = new Conf<StoreData>({
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
    return this.conf;
  }

  /** The whole store as it is on disk now (empty when there is no file yet). */
  read(): StoreData {
    try {
      return storeSchema.parse(this.open().store);
    } catch (error) {
      throw asConfigError(error, this.file, 'read');
    }
  }

  profile(name: string): StoredProfile | undefined {
    return this.read().profiles[name];
  }

  /** Read, change and write back under the lock. */
  update(change: (data: StoreData) => void): StoreData {
    this.ensureDir();
    const release = this.lock();
    try {
      const data = this.read();
      change(data);
      const checked = storeSchema.parse(data);
      try {
        this.open().store = checked;
        chmodSync(this.file, 0o600);
      } catch (error) {
        throw asConfigError(error, this.file, 'write');
      }
      return checked;
    } finally {
      release();
    }
  }

  private ensureDir(): void {
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      chmodSync(this.dir, 0o700);
    } catch (error) {
      throw asConfigError(error, this.dir, 'write');
    }
  }

  private lock(): () => void {
    const lockFile = `${this.file}.lock`;
    const started = Date.now();
    for (;;) {
      try {
        // The owner's pid goes in the lock, so that a process killed while holding it (kill -9, a
        // crash) does not block every later login until the lock goes stale by age.
        const fd = openSync(lockFile, 'wx', 0o600);
        try {
          writeSync(fd, String(process.pid));
        } finally {
          closeSync(fd);
        }
        return () => {
          try {
            unlinkSync(lockFile);
          } catch {
            // Already gone: nothing to release.
          }
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw asConfigError(error, lockFile, 'write');
        if (isStale(lockFile)) {
          try {
            unlinkSync(lockFile);
          } catch {
            // Another process removed it first.
          }
          continue;
        }
        if (Date.now() - started > LOCK_WAIT_MS) {
          throw new ConfigError(`The config store is locked by another hedge process (${lockFile}).`, {
            hint: 'Wait for it to finish, or delete the lock file if no hedge process is running.',
          });
        }
        sleepSync(25);
      }
    }
  }
}

/**
 * Held by a process that no longer runs; or empty for longer than writing a pid takes (its owner
 * died between creating and writing it); or older than LOCK_STALE_MS.
 */
function isStale(lockFile: string): boolean {
  try {
    const text = readFileSync(lockFile, 'utf8').trim();
    const age = Date.now() - statSync(lockFile).mtimeMs;
    if (text === '') return age > EMPTY_LOCK_STALE_MS;
    const owner = Number(text);
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && !isRunning(owner)) return true;
    return age > LOCK_STALE_MS;
  } catch {
    return false;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseStoreText(text: string, file: string): StoreData {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ConfigError(`The config store ${file} is not valid JSON.`, {
      hint: `Fix the file by hand, or move it away and run \`hedge login\` again (profiles in it would be lost).`,
    });
  }
  const result = storeSchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ConfigError(
      `The config store ${file} does not have the expected shape (${issue?.path.join('.') || 'top level'}: ${issue?.message}).`,
      { hint: 'Fix that entry by hand, or move the file away and run `hedge login` again.' },
    );
  }
  return result.data;
}

function asConfigError(error: unknown, file: string, action: 'read' | 'write'): ConfigError {
  if (error instanceof ConfigError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const reason = code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'permission denied' : (code ?? (error as Error).message);
  return new ConfigError(`Cannot ${action} the config store ${file}: ${reason}.`, {
    hint: 'Check the folder exists and is writable, or point HEDGE_CONFIG_DIR at one that is.',
  });
}

// The profile store on disk: 0600 file in a 0700 folder, a corrupted file reported (naming it)
// and never overwritten, and fields the CLI does not know kept on every write.
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/config/profile-store.js';
import { ConfigError } from '../../src/errors.js';
import { tempDir } from '../support/hedge-cli.js';

let tmp: { path: string; remove: () => void };
beforeEach(() => {
  tmp = tempDir('hedge-unit-store-');
});
afterEach(() => tmp.remove());

describe('ProfileStore', () => {
  it('reads an absent store as empty and creates file 0600 and folder 0700 on the first write', () => {
    const dir = join(tmp.path, 'a', 'b');
    const store = new ProfileStore(dir);
    expect(store.read()).toEqual({ profiles: {} });
    store.update((data) => {
      data.profiles.desk = { base_url: 'https://x/v2', api_key: 'hpk_test_UnitStoreKey000000000001' };
      data.current = 'desk';
    });
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(new ProfileStore(dir).read()).toMatchObject({ current: 'desk', profiles: { desk: { base_url: 'https://x/v2' } } });
  });

  it('tightens a store folder and file that were left open to others', () => {
    const dir = join(tmp.path, 'open');
    mkdirSync(dir, { mode: 0o755 });
    writeFileSync(join(dir, 'config.json'), '{"profiles": {}}\n', { mode: 0o644 });
    new ProfileStore(dir).update((data) => {
      data.current = undefined;
    });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['not JSON', '{"profiles": '],
    ['a wrong shape', '{"profiles": {"desk": {"api_key": "k"}}}'],
    ['a bad profile name', '{"profiles": {"../etc": {"base_url": "https://x/v2"}}}'],
  ])('reports %s as a ConfigError naming the file, and never writes over it', (_name, text) => {
    writeFileSync(join(tmp.path, 'config.json'), text, { mode: 0o600 });
    const store = new ProfileStore(tmp.path);
    expect(() => store.read()).toThrow(ConfigError);
    expect(() => store.read()).toThrow(join(tmp.path, 'config.json'));
    expect(() =>
      store.update((data) => {
        data.current = 'x';
      }),
    ).toThrow(ConfigError);
    expect(readFileSync(join(tmp.path, 'config.json'), 'utf8')).toBe(text);
  });

  it('keeps fields it does not know through a write', () => {
    writeFileSync(
      join(tmp.path, 'config.json'),
      JSON.stringify({ version: 3, profiles: { desk: { base_url: 'https://x/v2', team: 'fx' } } }),
      { mode: 0o600 },
    );
    const store = new ProfileStore(tmp.path);
    store.update((data) => {
      data.current = 'desk';
    });
    expect(JSON.parse(readFileSync(store.file, 'utf8'))).toEqual({
      version: 3,
      current: 'desk',
      profiles: { desk: { base_url: 'https://x/v2', team: 'fx' } },
    });
  });

  it('takes over a lock left by a dead process, or left empty by one killed before it wrote its pid', () => {
    const store = new ProfileStore(tmp.path);
    mkdirSync(tmp.path, { recursive: true });
    const lock = join(tmp.path, 'config.json.lock');
    writeFileSync(lock, '999999999');
    store.update((data) => {
      data.current = 'a';
    });
    writeFileSync(lock, '');
    utimesSync(lock, new Date(Date.now() - 5_000), new Date(Date.now() - 5_000));
    // Were it not taken over, update() would wait out the lock and throw ConfigError.
    store.update((data) => {
      data.current = 'b';
    });
    expect(store.read().current).toBe('b');
    expect(existsSync(lock)).toBe(false);
  });

  it('waits for a live holder and then says the store is locked', () => {
    const store = new ProfileStore(tmp.path);
    mkdirSync(tmp.path, { recursive: true });
    writeFileSync(join(tmp.path, 'config.json.lock'), String(process.ppid));
    expect(() => store.update(() => undefined)).toThrow(/locked by another hedge process/);
  });
});


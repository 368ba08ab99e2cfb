// The non-terminal pieces of `hedge login`: which profile and base URL it is about, reading a key
// from a pipe (one trailing newline dropped, empty refused), checking --ca-file, and saving under
// the store's lock without switching away from another current profile.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthError, InterruptedError, UsageError } from '../../src/core/errors.js';
import {
  checkCaFile,
  defaultBaseUrl,
  loginProfileName,
  readKeyFromStdin,
  saveLogin,
  trimOneNewline,
} from '../../src/platform/config/login-profile.js';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
import { tempDir } from '../support/hedge-cli.js';

const KEY = 'hpk_test_UnitLoginKey0000000000001';

describe('trimOneNewline', () => {
  it('drops exactly one trailing LF or CRLF and nothing else', () => {
    for (const [value, expected] of [
      [`${KEY}\n`, KEY],
      [`${KEY}\r\n`, KEY],
      [`${KEY}\n\n`, `${KEY}\n`],
      [` ${KEY}`, ` ${KEY}`],
      [KEY, KEY],
    ] as const)
      expect(trimOneNewline(value), String(value)).toBe(expected);
  });
});

describe('readKeyFromStdin', () => {
  const never = new AbortController().signal;

  it('reads the whole pipe, in chunks, minus one newline', async () => {
    expect(
      await readKeyFromStdin(Readable.from([Buffer.from(KEY.slice(0, 5)), Buffer.from(`${KEY.slice(5)}\n`)]), never),
    ).toBe(KEY);
  });

  it('refuses empty input and a lone newline (AuthError, exit 4)', async () => {
    await expect(readKeyFromStdin(Readable.from([]), never)).rejects.toBeInstanceOf(AuthError);
    await expect(readKeyFromStdin(Readable.from([Buffer.from('\n')]), never)).rejects.toThrow(/No API key on stdin/);
  });

  it('refuses input far too long to be a key', async () => {
    await expect(readKeyFromStdin(Readable.from([Buffer.alloc(5000, 'a')]), never)).rejects.toThrow(
      /more than 4096 bytes/,
    );
  });

  it('stops waiting when interrupted (a pipe that never closes)', async () => {
    const controller = new AbortController();
    const pending = readKeyFromStdin(new PassThrough(), controller.signal);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(InterruptedError);
  });
});

describe('loginProfileName and defaultBaseUrl', () => {
  it('--profile/HEDGE_PROFILE, then the current profile, then "default"', () => {
    expect(loginProfileName({ name: 'desk' }, { current: 'other', profiles: { other: { base_url: 'x' } } })).toBe(
      'desk',
    );
    expect(loginProfileName(undefined, { current: 'other', profiles: { other: { base_url: 'x' } } })).toBe('other');
    expect(loginProfileName(undefined, { current: 'gone', profiles: {} })).toBe('default');
    expect(loginProfileName(undefined, { profiles: {} })).toBe('default');
  });

  it('--base-url, then HEDGE_BASE_URL, then the stored one', () => {
    expect(defaultBaseUrl('https://flag/v2', { HEDGE_BASE_URL: 'https://env/v2' }, 'https://stored/v2')).toBe(
      'https://flag/v2',
    );
    expect(defaultBaseUrl(undefined, { HEDGE_BASE_URL: 'https://env/v2' }, 'https://stored/v2')).toBe('https://env/v2');
    expect(defaultBaseUrl(undefined, { HEDGE_BASE_URL: '  ' }, 'https://stored/v2')).toBe('https://stored/v2');
    expect(defaultBaseUrl(undefined, {}, undefined)).toBeUndefined();
  });
});

describe('checkCaFile', () => {
  let tmp: { path: string; remove: () => void };
  beforeEach(() => {
    tmp = tempDir('hedge-unit-ca-');
  });
  afterEach(() => tmp.remove());

  it('accepts a PEM certificate file and returns its absolute path', () => {
    const file = join(tmp.path, 'ca.pem');
    writeFileSync(file, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    expect(checkCaFile(file)).toBe(file);
  });

  it('refuses a missing file and a file that is not PEM (UsageError, exit 2)', () => {
    expect(() => checkCaFile(join(tmp.path, 'missing.pem'))).toThrow(UsageError);
    const notPem = join(tmp.path, 'key.txt');
    writeFileSync(notPem, 'hello');
    expect(() => checkCaFile(notPem)).toThrow(/not a PEM certificate/);
  });
});

describe('saveLogin', () => {
  let tmp: { path: string; remove: () => void };
  beforeEach(() => {
    tmp = tempDir('hedge-unit-save-');
  });
  afterEach(() => tmp.remove());

  it('makes the first profile current, keeps another current one, and keeps unknown fields', async () => {
    const store = new ProfileStore(join(tmp.path, 'cfg'));
    const first = await saveLogin(store, {
      name: 'desk',
      baseUrl: 'https://a/v2',
      apiKey: KEY,
      savedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(first).toMatchObject({ current: true, previousCurrent: undefined });

    await store.update((data) => {
      (data.profiles.desk as Record<string, unknown>).colour = 'blue';
    });
    const second = await saveLogin(store, {
      name: 'live',
      baseUrl: 'https://b/v2',
      apiKey: KEY,
      savedAt: '2026-01-01T00:00:00.000Z',
    });
    expect(second).toMatchObject({ current: false, previousCurrent: 'desk' });

    const renewed = await saveLogin(store, {
      name: 'desk',
      baseUrl: 'https://a/v2',
      apiKey: `${KEY}X`,
      caFile: '/ca.pem',
      savedAt: 'later',
    });
    expect(renewed.current).toBe(true);
    expect(store.read().profiles.desk).toEqual({
      base_url: 'https://a/v2',
      api_key: `${KEY}X`,
      ca_file: '/ca.pem',
      saved_at: 'later',
      colour: 'blue',
    });
  });
});

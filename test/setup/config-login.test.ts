// The non-terminal pieces of `hedge login` (the whole of it, end to end: profiles-login.test.ts): which
// profile and base URL it is about, reading a key from a pipe (one trailing newline dropped), checking --ca-file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { InterruptedError, UsageError } from '../../src/core/errors.js';
import {
  checkCaFile,
  defaultBaseUrl,
  loginProfileName,
  readKeyFromStdin,
  trimOneNewline,
} from '../../src/platform/config/profiles.js';
import { tempFolders } from '../support/hedge-cli.js';

const KEY = 'hpk_test_UnitLoginKey0000000000001';
const tempFolder = tempFolders('hedge-unit-ca-');

it('trimOneNewline: drops exactly one trailing LF or CRLF and nothing else', () => {
  for (const [value, expected] of [
    [`${KEY}\n`, KEY],
    [`${KEY}\r\n`, KEY],
    [`${KEY}\n\n`, `${KEY}\n`],
    [` ${KEY}`, ` ${KEY}`],
    [KEY, KEY],
  ] as const)
    expect(trimOneNewline(value), String(value)).toBe(expected);
});

it('readKeyFromStdin reads the whole pipe, in chunks, minus one newline; refuses input far too long to be a key; stops waiting when interrupted (a pipe that never closes)', async () => {
  const never = new AbortController().signal;
  expect(
    await readKeyFromStdin(Readable.from([Buffer.from(KEY.slice(0, 5)), Buffer.from(`${KEY.slice(5)}\n`)]), never),
  ).toBe(KEY);
  await expect(readKeyFromStdin(Readable.from([Buffer.alloc(5000, 'a')]), never)).rejects.toThrow(
    /more than 4096 bytes/,
  );
  const controller = new AbortController();
  const pending = readKeyFromStdin(new PassThrough(), controller.signal);
  controller.abort();
  await expect(pending).rejects.toBeInstanceOf(InterruptedError);
});

// The flag, the current profile and "default" end to end: profiles-login.test.ts.
it('loginProfileName: a current profile that is gone from the store is not renewed, "default"; defaultBaseUrl: --base-url, then HEDGE_BASE_URL, then the stored one', () => {
  expect([
    loginProfileName(undefined, { current: 'gone', profiles: {} }),
    defaultBaseUrl('https://flag/v2', { HEDGE_BASE_URL: 'https://env/v2' }, 'https://stored/v2'),
    // A blank HEDGE_BASE_URL is no base URL.
    defaultBaseUrl(undefined, { HEDGE_BASE_URL: '  ' }, 'https://stored/v2'),
    defaultBaseUrl(undefined, {}, undefined),
  ]).toEqual(['default', 'https://flag/v2', 'https://stored/v2', undefined]);
});

it('checkCaFile refuses a file that is not PEM (UsageError, exit 2)', () => {
  const notPem = join(tempFolder(), 'key.txt');
  writeFileSync(notPem, 'hello');
  expect(() => checkCaFile(notPem)).toThrow(UsageError);
  expect(() => checkCaFile(notPem)).toThrow(/not a PEM certificate/);
});

// The head's digest extended from a kept state: the same SHA-256 as Node's of the whole, however the bytes are cut.
import { createHash, randomBytes } from 'node:crypto';
import { extendSha256, isSha256State, sha256Of } from '../../src/features/acct/sha256-state.js';

const node = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

it('a state resumed at any cut gives the digest of the whole, at every length around a block', () => {
  for (const length of [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 4099]) {
    const bytes = randomBytes(length);
    for (const cut of new Set([0, 1, 55, 64, Math.floor(length / 2), length].filter((at) => at <= length))) {
      const state = extendSha256(extendSha256(undefined, bytes.subarray(0, cut)), bytes.subarray(cut));
      expect(isSha256State(state)).toBe(true);
      expect(sha256Of(state)).toBe(node(bytes));
    }
  }
  expect(sha256Of(undefined)).toBe(node(Buffer.alloc(0)));
  // FIPS 180-4's example: "abc".
  expect(sha256Of(extendSha256(undefined, Buffer.from('abc')))).toBe(
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  );
});

it('a state that is not one is told apart', () => {
  expect(isSha256State('')).toBe(false);
  expect(isSha256State(`${'0'.repeat(64)}:3:0`)).toBe(false);
  expect(isSha256State(`${'0'.repeat(64)}:3:${'00'.repeat(64)}`)).toBe(false);
});

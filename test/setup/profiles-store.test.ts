// A store file that is not JSON, or not the expected shape, is an error that names the file and
// says how to fix it: exit 1, no stack trace, no prompt, no request, and the file left exactly as
// it was (never a silent reset that would lose the other profiles).
import { readFileSync, writeFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { hedgeIn } from '../support/hedge-cli.js';
import { storeFile, writeStore } from '../support/config-store.js';
import { KEY_A } from '../support/keys.js';
import { useProfileSuite, type TempDir } from '../support/profile-suite.js';
import { ok, exits } from '../support/cli-runs.js';

let sandbox: RunningSandbox;
let tmp: TempDir;
const suite = useProfileSuite('hedge-store-');
beforeEach(() => ({ sandbox, tmp } = suite));

const CORRUPTIONS: Array<{ name: string; text: string; says: RegExp }> = [
  { name: 'not JSON', text: '{"current": "desk", "profiles": {"desk": {\n', says: /is not valid JSON/ },
  {
    name: 'a profile without its base URL',
    text: '{"current": "desk", "profiles": {"desk": {"api_key": 42}}}\n',
    says: /does not have the expected shape \(profiles\.desk\.base_url/,
  },
  { name: 'an array', text: '[]\n', says: /does not have the expected shape/ },
];

describe.each(CORRUPTIONS)('a store file that is $name', ({ text, says }) => {
  it('stops every command with exit 1, naming the file and the fix, and leaves it untouched', async () => {
    writeFileSync(storeFile(tmp.path), text, { mode: 0o600 });
    const runs: Array<[string[], string | undefined]> = [
      [['profile', 'list'], undefined],
      [['profile', 'use', 'desk'], undefined],
      [['profile', 'remove', 'desk'], undefined],
      [['logout'], undefined],
      [['whoami'], undefined],
      [['markets'], undefined],
      [['login', '--profile', 'desk', '--base-url', sandbox.baseUrl], KEY_A],
    ];
    for (const [args, input] of runs) {
      const result = await hedgeIn(tmp.path, args, { input });
      const label = args.join(' ');
      exits(result, 1, storeFile(tmp.path));
      expect(result.stderr, label).toMatch(says);
      expect(result.stderr, label).toMatch(/Fix (the file|that entry) by hand/);
      expect(result.stderr, label).not.toMatch(/\n\s+at /);
      expect(result.stdout, label).toBe('');
      expect(readFileSync(storeFile(tmp.path), 'utf8'), label).toBe(text);
    }
    const json = exits(await hedgeIn(tmp.path, 'profile list --json'), 1);
    expect(JSON.parse(json.stderr).error.message).toContain(storeFile(tmp.path));
    expect(sandbox.requestLog).toHaveLength(0);
  });
});

it('the environment alone still works past a corrupted store (it is not even opened)', async () => {
  writeFileSync(storeFile(tmp.path), 'not json', { mode: 0o600 });
  const result = ok(
    await hedgeIn(tmp.path, 'whoami --json', {
      env: { HEDGE_API_KEY: KEY_A, HEDGE_BASE_URL: sandbox.baseUrl },
    }),
  );
  expect(JSON.parse(result.stdout).sources).toMatchObject({ api_key: 'environment', base_url: 'environment' });
});

it('fields the CLI does not know are kept when it writes the store', async () => {
  writeStore(tmp.path, {
    current: 'desk',
    note: 'kept',
    profiles: { desk: { base_url: sandbox.baseUrl, api_key: KEY_A, colour: 'blue' } },
  });
  ok(await hedgeIn(tmp.path, 'logout'));
  const store = JSON.parse(readFileSync(storeFile(tmp.path), 'utf8'));
  expect(store).toEqual({
    current: 'desk',
    note: 'kept',
    profiles: { desk: { base_url: sandbox.baseUrl, colour: 'blue' } },
  });
});

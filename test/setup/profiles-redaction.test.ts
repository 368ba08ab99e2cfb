// Keys never leave the process whole: a session of commands run with --verbose (and again with
// --json) — login, whoami, markets, account, profile list, and failing ones — is searched for the
// full key, which must not appear anywhere on stdout or stderr. The redacted form may.
import { beforeEach, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { hedgeIn, type RunResult } from '../support/hedge-cli.js';
import { loginWith } from '../support/config-store.js';
import { KEY_A, KEY_B, UNKNOWN_KEY } from '../support/keys.js';
import { useProfileSuite, type TempDir } from '../support/profile-suite.js';

let sandbox: RunningSandbox;
let tmp: TempDir;
const suite = useProfileSuite('hedge-redaction-', { clearRequestLog: false });
beforeEach(() => ({ sandbox, tmp } = suite));

const redacted = (key: string) => `${key.slice(0, 8)}…${key.slice(-4)}`;

it.each([[['--verbose']], [['--verbose', '--json']]])(
  'no output of a session run with %j holds a whole key',
  async (mode) => {
    const outputs: Array<[string, RunResult]> = [];
    const record = async (label: string, run: Promise<RunResult>, code: number) => {
      const result = await run;
      expect(result.code, `${label}: ${result.stderr}`).toBe(code);
      outputs.push([label, result]);
    };
    const dir = tmp.path;
    {
      await record('login', loginWith(dir, sandbox, KEY_A, ['--profile', 'desk', ...mode]), 0);
      await record('login refused', loginWith(dir, sandbox, UNKNOWN_KEY, ['--profile', 'bad', ...mode]), 4);
      await record('login malformed', loginWith(dir, sandbox, `${KEY_A}!`, ['--profile', 'bad', ...mode]), 4);
      await record('whoami', hedgeIn(dir, ['whoami', ...mode]), 0);
      await record('whoami env key', hedgeIn(dir, ['whoami', ...mode], { env: { HEDGE_API_KEY: KEY_B } }), 0);
      await record('whoami refused', hedgeIn(dir, ['whoami', ...mode], { env: { HEDGE_API_KEY: UNKNOWN_KEY } }), 4);
      await record('markets', hedgeIn(dir, ['markets', ...mode]), 0);
      await record('account', hedgeIn(dir, ['account', ...mode]), 0);
      await record('profile list', hedgeIn(dir, ['profile', 'list', ...mode]), 0);
      await record('markets refused', hedgeIn(dir, ['markets', ...mode], { env: { HEDGE_API_KEY: UNKNOWN_KEY } }), 4);
      await record(
        'account unreachable',
        hedgeIn(dir, ['account', '--timeout', '1', ...mode], { env: { HEDGE_BASE_URL: 'http://127.0.0.1:9/v2' } }),
        5,
      );
      await record('key as a flag', hedgeIn(dir, ['login', `--api-key=${KEY_A}`, ...mode]), 2);
    }
    const everything = outputs.map(([label, result]) => `## ${label}\n${result.stdout}\n${result.stderr}`).join('\n');
    for (const key of [KEY_A, KEY_B, UNKNOWN_KEY]) expect(everything).not.toContain(key);
    // The session did talk about the keys: in their redacted form.
    expect(everything).toContain(redacted(KEY_A));
    expect(everything).toContain(redacted(KEY_B));
    expect(everything).toContain('→ GET /account');
  },
);

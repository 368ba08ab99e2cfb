// Profiles once saved: where each setting comes from (flag > environment > stored profile, as
// `whoami --json` reports it), profile list/use/remove, logout, and what happens with nothing
// configured at all. A store file that is not JSON, or not the expected shape, is an error that
// names the file and says how to fix it (exit 1, no stack trace, no prompt, no request), the file
// left exactly as it was. Keys never leave the process whole: a session of commands run with
// --verbose (and --json) is searched for the full key; the redacted form may appear.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loginWith, readStore, storeFile, writeStore } from '../support/config-store.js';
import { KEY_A, KEY_B, KEY_C, LIVE_KEY, UNKNOWN_KEY } from '../support/keys.js';
import { useProfileSuite } from '../support/profile-suite.js';
import { okJson, ok, exits } from '../support/cli-runs.js';

const suite = useProfileSuite('hedge-profiles-');
// The suite's fields as its hooks fill them, read again before each test.
let { simulator, sandbox, tmp } = suite;
beforeEach(() => ({ simulator, sandbox, tmp } = suite));
const { run, nothingSent } = suite;

/** Two test profiles on the sandbox ("alpha" current) and a logged-out live one; fields the CLI does not know. */
function seedProfiles() {
  writeStore(tmp.path, {
    current: 'alpha',
    note: 'kept',
    profiles: {
      alpha: { base_url: sandbox.baseUrl, api_key: KEY_A, colour: 'blue' },
      bravo: { base_url: sandbox.baseUrl, api_key: KEY_B },
      prod: { base_url: 'https://api.example.com/partners/acme/v2', api_key: LIVE_KEY },
      gone: { base_url: sandbox.baseUrl },
    },
  });
}

const redacted = (key: string) => `${key.slice(0, 8)}…${key.slice(-4)}`;

const whoami = async (env = {}, args: string[] = []) => okJson(await run([...args, 'whoami', '--json'], { env }));

describe('precedence: flag > environment > profile (whoami --json)', () => {
  beforeEach(seedProfiles);

  it('uses the current profile when nothing else is said; HEDGE_PROFILE picks another; --profile beats it; HEDGE_API_KEY and HEDGE_BASE_URL beat the profile, each on its own; both alone work past a corrupted store, never opened', async () => {
    expect(await whoami()).toMatchObject({
      profile: 'alpha',
      environment: 'test',
      base_url: sandbox.baseUrl,
      api_key: redacted(KEY_A),
      sources: { profile: 'current', api_key: 'profile', base_url: 'profile' },
      key_check: { status: 'ok' },
    });
    expect(simulator.requests('GET', '/account')).toHaveLength(1);
    // HEDGE_PROFILE picks another profile and --profile beats it; HEDGE_API_KEY and HEDGE_BASE_URL beat the profile,
    // each on its own; an explicit --profile takes that profile whole, whatever the environment says.
    const bravo = { HEDGE_PROFILE: 'bravo' };
    for (const [env, flags, expected] of [
      [bravo, [], { profile: 'bravo', sources: { profile: 'environment' } }],
      [bravo, ['--profile', 'alpha'], { profile: 'alpha', api_key: redacted(KEY_A), sources: { profile: 'flag' } }],
      [
        { HEDGE_API_KEY: KEY_C },
        [],
        { profile: 'alpha', api_key: redacted(KEY_C), sources: { api_key: 'environment', base_url: 'profile' } },
      ],
      [
        { ...bravo, HEDGE_BASE_URL: sandbox.baseUrl },
        [],
        { profile: 'bravo', sources: { api_key: 'profile', base_url: 'environment' } },
      ],
      [
        { HEDGE_API_KEY: KEY_C, HEDGE_BASE_URL: 'https://elsewhere.example/v2' },
        ['--profile', 'bravo'],
        { profile: 'bravo', sources: { api_key: 'profile', base_url: 'profile' } },
      ],
    ] as const)
      expect(await whoami(env, [...flags]), JSON.stringify([env, flags])).toMatchObject(expected);
    // A global option after the command counts the same.
    expect(okJson(await run('whoami --json --profile bravo'))).toMatchObject({
      profile: 'bravo',
      sources: { profile: 'flag' },
    });

    const env = { HEDGE_API_KEY: KEY_C, HEDGE_BASE_URL: sandbox.baseUrl };
    const both = await whoami(env);
    // The environment alone still works past a corrupted store: it is not even opened.
    writeFileSync(storeFile(tmp.path), 'not json', { mode: 0o600 });
    const fromEnv = { api_key: 'environment', base_url: 'environment' };
    expect([both.sources, (await whoami(env)).sources]).toMatchObject([fromEnv, fromEnv]);
  });

  it("a key refused from HEDGE_API_KEY: a command's hint and whoami (doctor: doctor.test.ts) say to fix it there (a login would not change it), exit 4, whoami --json shows it refused; unset, the profile's key answers; the profile's own key refused: save a new one with `hedge login`", async () => {
    const env = { HEDGE_API_KEY: UNKNOWN_KEY };
    expect(
      exits(await run('account', { env }), 4, 'The key is HEDGE_API_KEY, which comes before any saved profile').stderr,
    ).not.toContain('hedge login');
    exits(
      await run('whoami', { env }),
      4,
      'it is HEDGE_API_KEY, which comes before any saved profile; set the right key there',
    );
    expect(JSON.parse(exits(await run('whoami --json', { env }), 4, 'hedge login').stdout)).toMatchObject({
      key_check: { status: 'refused', code: 'unauthorized' },
    });
    expect(ok(await run('account')).stdout).toContain('balance_usdc');
    expect(simulator.requests().map((entry) => `${entry.method} ${entry.path} ${entry.status}`)).toEqual([
      'GET /account 401',
      'GET /account 401',
      'GET /account 401',
      'GET /account 200',
    ]);
    // The profile's own key refused: saving a new one is the fix.
    writeStore(tmp.path, {
      current: 'alpha',
      profiles: { alpha: { base_url: sandbox.baseUrl, api_key: UNKNOWN_KEY } },
    });
    exits(await run('account'), 4, 'save a new one with `hedge login`');
    expect(exits(await run('whoami'), 4, 'save the right one with `hedge login`').stderr).not.toContain(
      'HEDGE_API_KEY',
    );
  });

  it('the human card says where each setting came from and marks a live key LIVE', async () => {
    const card = ok(await run('whoami', { env: { HEDGE_FORCE_TTY: '1', HEDGE_API_KEY: KEY_C } })).stdout;
    for (const text of ['HEDGE_API_KEY', 'the current profile']) expect(card).toContain(text);
    expect(card).toMatch(/Key check.*ok/);

    // The live profile points at an address nobody listens on: unreachable, exit 5, still LIVE.
    writeStore(tmp.path, {
      current: 'prod',
      profiles: { prod: { base_url: 'https://127.0.0.1:9/v2', api_key: LIVE_KEY } },
    });
    const live = exits(await run('whoami', { env: { HEDGE_FORCE_TTY: '1' } }), 5).stdout;
    expect(live).toContain('LIVE');
    expect(live).toMatch(/unreachable/);
  });
});

it('without HEDGE_CONFIG_DIR the store is in an absolute $XDG_CONFIG_HOME/hedge, else ~/.config/hedge: a relative XDG_CONFIG_HOME is ignored, never read from the working folder', async () => {
  for (const [dir, name] of [
    ['xdg', 'in-xdg'],
    ['.config', 'in-home'],
  ])
    writeStore(join(tmp.path, dir, 'hedge'), {
      current: name,
      profiles: { [name]: { base_url: sandbox.baseUrl, api_key: KEY_A } },
    });
  const listed = async (XDG_CONFIG_HOME: string) =>
    okJson(await run('profile list --json', { env: { HEDGE_CONFIG_DIR: undefined, XDG_CONFIG_HOME } })).map(
      (profile: { name: string }) => profile.name,
    );
  expect([await listed(join(tmp.path, 'xdg')), await listed('xdg')]).toEqual([['in-xdg'], ['in-home']]);
  nothingSent();
});

describe('profile list / use / remove', () => {
  beforeEach(seedProfiles);

  it('lists every profile with environment, redacted key and the current one; --json never holds a whole key; HEDGE_PROFILE naming no profile, or not a name: the refusal names HEDGE_PROFILE, not a --profile never given (exit 2); nothing sent', async () => {
    const json = ok(await run('profile list --json'));
    expect(JSON.parse(json.stdout)).toMatchObject([
      { name: 'alpha', current: true, environment: 'test', base_url: sandbox.baseUrl },
      { name: 'bravo' },
      { name: 'gone', api_key: null, environment: null },
      { name: 'prod', current: false, environment: 'live' },
    ]);
    for (const key of [KEY_A, KEY_B, LIVE_KEY]) expect(json.stdout).not.toContain(key);
    // On a screen (the current one marked *, LIVE, logged out): test/output/screens.test.ts's reviewed profile lists.
    const [header, first] = (await run('profile list')).stdout.split('\n');
    expect(header).toBe('name\tcurrent\tenvironment\tbase_url\tapi_key\tca_file\tjournal_url\tsaved_at\tkey_store');
    expect(first).toMatch(/^alpha\ttrue\ttest\t/);

    // HEDGE_PROFILE naming no profile, or not a name: the refusal names HEDGE_PROFILE, not a --profile never given.
    for (const [value, said] of [
      ['nope', 'HEDGE_PROFILE: no profile named "nope" (profiles: '],
      ['bad name', 'HEDGE_PROFILE: "bad name" is not a profile name'],
    ]) {
      for (const command of ['whoami', 'positions']) {
        const { stderr } = exits(await run(command, { env: { HEDGE_PROFILE: value } }), 2);
        expect(stderr).toContain(`hedge: ${said}`);
        expect(stderr).not.toContain('--profile');
      }
    }
    // The flag is named when the flag said it: test/reliability/bad-input.test.ts.
    nothingSent();
  });

  it('use switches the current profile; an unknown name is exit 2 naming the existing ones; remove deletes a profile; removing the current one leaves none current', async () => {
    ok(await run('profile use bravo'));
    expect([readStore(tmp.path).current, (await whoami()).profile]).toEqual(['bravo', 'bravo']);

    exits(await run('profile use prod'), 0, 'LIVE');

    exits(await run('profile use nope'), 2, 'no profile named "nope"', 'alpha, bravo, gone, prod');
    expect(readStore(tmp.path).current).toBe('prod');

    ok(await run('profile remove bravo'));
    expect(Object.keys(readStore(tmp.path).profiles)).toEqual(['alpha', 'prod', 'gone']);

    exits(await run('profile remove prod'), 0, 'hedge profile use');
    const store = readStore(tmp.path);
    expect([store.current, store.profiles.prod]).toEqual([undefined, undefined]);

    exits(await run('profile remove prod'), 2, 'alpha, gone');

    // With no current profile, a command says how to log in (exit 4).
    exits(await run('markets'), 4, 'hedge login');
  });
});

it('hedge logout: --demo: the demo has no login to end, the store as it was (exit 2); --profile logs out that profile only; an unknown one is exit 2; without it, removes the key of the current profile and keeps its base URL, and the fields the CLI does not know; commands then exit 4', async () => {
  seedProfiles();
  const before = readFileSync(storeFile(tmp.path), 'utf8');
  exits(await run('--demo logout'), 2, '--demo: the demo has no login to end; leave out --demo');
  exits(await run('--demo logout --profile bravo'), 2, '--profile bravo and --demo disagree');
  expect(readFileSync(storeFile(tmp.path), 'utf8')).toBe(before);

  expect(okJson(await run('logout --profile bravo --json'))).toEqual({
    profile: 'bravo',
    logged_out: true,
    key_store: 'file',
  });
  let store = readStore(tmp.path);
  expect([store.profiles.bravo.api_key, store.profiles.alpha.api_key]).toEqual([undefined, KEY_A]);
  exits(await run('logout --profile nope'), 2, 'alpha, bravo');

  ok(await run('logout'));
  store = readStore(tmp.path);
  expect([store.profiles.alpha, store.current, store.note, store.profiles.prod.api_key]).toEqual([
    { base_url: sandbox.baseUrl, colour: 'blue' },
    'alpha',
    'kept',
    LIVE_KEY,
  ]);

  exits(await run('markets'), 4, 'no API key', 'hedge login');
  nothingSent();

  expect(okJson(await run('logout --json'))).toEqual({ profile: 'alpha', logged_out: false, key_store: null });
});

it('nothing configured: every command that needs a key exits 4 and says how to log in or try --demo, sending nothing; a malformed HEDGE_API_KEY is exit 4 too, not echoed whole', async () => {
  for (const args of ['markets', 'account --json', 'whoami']) {
    const result = exits(await run(args), 4, 'hedge login', '--demo');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }
  exits(await run('profile list'), 0, 'hedge login');
  ok(await run('logout'));
  // A malformed HEDGE_API_KEY: exit 4 before any request, and not echoed whole.
  const bad = 'hpk_prod_SomethingThatIsNotAKey000';
  const env = { HEDGE_API_KEY: bad, HEDGE_BASE_URL: sandbox.baseUrl };
  expect(exits(await run('whoami', { env }), 4, 'malformed').stderr).not.toContain(bad);
  nothingSent();
});

const CORRUPTIONS = [
  { name: 'not JSON', text: '{"current": "desk", "profiles": {"desk": {\n', says: /is not valid JSON/ },
  {
    name: 'a profile without its base URL',
    text: '{"current": "desk", "profiles": {"desk": {"api_key": 42}}}\n',
    says: /does not have the expected shape \(profiles\.desk\.base_url/,
  },
  { name: 'an array', text: '[]\n', says: /does not have the expected shape/ },
];

it.each(CORRUPTIONS)(
  'a store file that is $name: stops every command with exit 1, naming the file and the fix, and leaves it untouched',
  async ({ text, says }) => {
    writeFileSync(storeFile(tmp.path), text, { mode: 0o600 });
    const login = `login --profile desk --base-url ${sandbox.baseUrl}`;
    for (const command of [
      'profile list',
      'profile use desk',
      'profile remove desk',
      'logout',
      'whoami',
      'markets',
      login,
    ]) {
      const result = exits(
        await run(command, { input: command === login ? KEY_A : undefined }),
        1,
        storeFile(tmp.path),
      );
      expect(result.stderr, command).toMatch(says);
      expect(result.stderr, command).toMatch(/Fix (the file|that entry) by hand/);
      expect(result.stderr, command).not.toMatch(/\n\s+at /);
      expect(result.stdout, command).toBe('');
      expect(readFileSync(storeFile(tmp.path), 'utf8'), command).toBe(text);
    }
    expect(JSON.parse(exits(await run('profile list --json'), 1).stderr).error.message).toContain(storeFile(tmp.path));
    nothingSent();
  },
);

it.each([[['--verbose']], [['--verbose', '--json']]])(
  'no output of a session run with %j holds a whole key',
  async (mode) => {
    // Logins (a good key, one the server refuses, a malformed one), then commands with their exit codes.
    let everything = '';
    for (const [key, code] of [
      [KEY_A, 0],
      [UNKNOWN_KEY, 4],
      [`${KEY_A}!`, 4],
    ] as const) {
      const result = exits(
        await loginWith(tmp.path, sandbox, key, ['--profile', code ? 'bad' : 'desk', ...mode]),
        code,
      );
      everything += `${result.stdout}\n${result.stderr}\n`;
    }
    const refused = { HEDGE_API_KEY: UNKNOWN_KEY };
    const runs: Array<[string, number, Record<string, string>?]> = [
      ['whoami', 0],
      ['whoami', 0, { HEDGE_API_KEY: KEY_B }],
      ['whoami', 4, refused],
      ['markets', 0],
      ['account', 0],
      ['profile list', 0],
      ['markets', 4, refused],
      ['account --timeout 1', 5, { HEDGE_BASE_URL: 'http://127.0.0.1:9/v2' }],
      [`login --api-key=${KEY_A}`, 2],
    ];
    for (const [args, code, env] of runs) {
      const result = exits(await run([...args.split(' '), ...mode], { env }), code);
      everything += `${result.stdout}\n${result.stderr}\n`;
    }
    for (const key of [KEY_A, KEY_B, UNKNOWN_KEY]) expect(everything).not.toContain(key);
    // The session did talk about the keys: in their redacted form.
    expect(everything).toContain(redacted(KEY_A));
    expect(everything).toContain(redacted(KEY_B));
    expect(everything).toContain('→ GET /account');
  },
);

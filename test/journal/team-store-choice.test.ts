// Which journal store a command uses, and how its address is shown: the URL's password never
// leaves the process (redacted in messages, scrubbed from anything printed), and the store follows
// the credentials' precedence (an explicit --profile taken whole; HEDGE_JOURNAL_URL; the profile in use).
import { chooseJournalStore } from '../../src/platform/config/journal-store.js';
import { checkJournalUrl } from '../../src/platform/config/profiles.js';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
import { scrubSecrets } from '../../src/core/security/secrets.js';
import { STORE_URL_ENCODING, isStoreUrl, redactStoreUrl, storeUrlSecrets } from '../../src/core/security/store-url.js';
import { UsageError } from '../../src/core/errors.js';
import { writeStore } from '../support/config-store.js';
import { tempFolders } from '../support/hedge-cli.js';

const tempFolder = tempFolders('hedge-store-choice-');

/** The store a command run in `dir` with `env` (and `--profile`, `--demo`) uses. */
const choose = (dir: string, env: Record<string, string>, profileFlag?: string, demo = false) =>
  chooseJournalStore({ demo, profileFlag, env, configDir: dir, store: async () => new ProfileStore(dir) });

it('the store URL is shown with its password redacted, in the user part and as a query parameter', () => {
  expect(
    [
      'postgres://desk:s3cr3t-pw@db.example:5432/hedge',
      'postgresql://desk@db/hedge?sslmode=require&password=abc123',
      'postgres://desk@db/hedge',
      'postgres://desk:pw@[::1',
    ].map(redactStoreUrl),
  ).toEqual([
    'postgres://desk:***@db.example:5432/hedge',
    'postgresql://desk@db/hedge?sslmode=require&password=***',
    'postgres://desk@db/hedge',
    'postgres://… (not a URL)',
  ]);
  expect(storeUrlSecrets('postgres://desk:p%40ss@db/x')).toEqual(['p%40ss', 'p@ss']);
  expect([isStoreUrl('POSTGRES://x'), isStoreUrl('mysql://x')]).toEqual([true, false]);
});

it('HEDGE_JOURNAL_URL: chosen, its password registered with the scrubber so no output can carry it', async () => {
  const dir = tempFolder();
  const env = { HEDGE_JOURNAL_URL: 'postgres://desk:correct-horse-battery@db.internal:5432/hedge' };
  expect(await choose(dir, env)).toEqual({
    kind: 'postgres',
    url: env.HEDGE_JOURNAL_URL,
    shown: 'postgres://desk:***@db.internal:5432/hedge',
    source: 'HEDGE_JOURNAL_URL',
  });
  expect(scrubSecrets('connect failed for correct-horse-battery')).toBe('connect failed for ***');
  await expect(choose(dir, { HEDGE_JOURNAL_URL: 'mysql://desk:pw1@db/x' })).rejects.toThrow(
    'HEDGE_JOURNAL_URL: mysql://desk:***@db/x is not a journal store; expected postgres://USER@HOST:PORT/DATABASE (or postgresql://…).',
  );
});

it('precedence: --demo keeps the file; an explicit --profile is taken whole; else HEDGE_JOURNAL_URL, then the profile in use', async () => {
  const dir = tempFolder();
  writeStore(dir, {
    current: 'desk',
    profiles: {
      desk: { base_url: 'https://api.example/v2', journal_url: 'postgres://desk@team-db/hedge' },
      solo: { base_url: 'https://api.example/v2' },
    },
  });
  const teamEnv = { HEDGE_JOURNAL_URL: 'postgres://ops@env-db/hedge' };
  const file = { kind: 'file' };
  expect([
    await choose(dir, teamEnv, undefined, true),
    await choose(dir, {}),
    await choose(dir, teamEnv),
    await choose(dir, teamEnv, 'desk'),
    await choose(dir, teamEnv, 'solo'),
    await choose(dir, { HEDGE_PROFILE: 'solo' }),
    // Key and base URL both from the environment: no profile is in use, its store is not even read.
    await choose(dir, { HEDGE_API_KEY: 'sk_test_abcdefgh1234', HEDGE_BASE_URL: 'https://api.example/v2' }),
  ]).toMatchObject([
    file,
    { kind: 'postgres', url: 'postgres://desk@team-db/hedge', source: 'profile "desk"' },
    { kind: 'postgres', url: 'postgres://ops@env-db/hedge', source: 'HEDGE_JOURNAL_URL' },
    { url: 'postgres://desk@team-db/hedge' },
    file,
    file,
    file,
  ]);
});

it('a URL that does not parse (a password with / or #) is exit 2 in one line that shows none of the password, which is registered with the scrubber; --journal-url takes a postgres URL without a password, or `local`, and refuses one with a password, not echoing it', async () => {
  const dir = tempFolder();
  for (const [url, password, why] of [
    ['postgres://desk:Zk/Wq9vTr8@db.internal:5432/hedge', 'Zk/Wq9vTr8', 'it does not parse as a URL'],
    [
      'postgres://desk:5432#Xb7Lm2Qp@db.internal/hedge',
      '5432#Xb7Lm2Qp',
      'it has a # fragment, which a store URL never has',
    ],
    ['postgres://desk:5432?Hn3Vc8Ty@db.internal/hedge', '5432?Hn3Vc8Ty', 'its query holds an @ or a /'],
  ]) {
    const error = await choose(dir, { HEDGE_JOURNAL_URL: url }).then(
      () => undefined,
      (failure) => failure,
    );
    expect(error, url).toBeInstanceOf(UsageError);
    const message = error.message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toBe(
      `HEDGE_JOURNAL_URL: postgres://… (not a URL) cannot be used: ${why}; write postgres://USER:PASSWORD@HOST:PORT/DATABASE and ${STORE_URL_ENCODING}.`,
    );
    expect(message).not.toContain(password.slice(5));
    expect([redactStoreUrl(url), scrubSecrets(`connect failed for ${password}`)]).toEqual([
      'postgres://… (not a URL)',
      'connect failed for ***',
    ]);
    expect(() => checkJournalUrl(url)).toThrow(`--journal-url: postgres://… (not a URL) cannot be used: ${why};`);
  }
  // Encoded, the same password is a store URL.
  expect(await choose(dir, { HEDGE_JOURNAL_URL: 'postgres://desk:Zk%2FWq9vTr8@db.internal:5432/hedge' })).toMatchObject(
    {
      kind: 'postgres',
      shown: 'postgres://desk:***@db.internal:5432/hedge',
    },
  );

  // --journal-url: a postgres URL without a password, or `local`; a password on the command line is refused and not echoed.
  expect([checkJournalUrl(' postgres://desk@db:5432/hedge '), checkJournalUrl('local')]).toEqual([
    'postgres://desk@db:5432/hedge',
    null,
  ]);
  expect(() => checkJournalUrl('https://db/hedge')).toThrow(
    /--journal-url: https:\/\/db\/hedge is not allowed; expected postgres:\/\//,
  );
  expect(() => checkJournalUrl('postgres://desk:tr0ub4dor-3@db/hedge')).toThrow(
    expect.objectContaining({ message: expect.not.stringContaining('tr0ub4dor') }),
  );
  expect(() => checkJournalUrl('postgres://desk:tr0ub4dor-3@db/hedge')).toThrow(
    '--journal-url: postgres://desk:***@db/hedge carries a password',
  );
});

// Keys at rest in the OS keyring, against a real Secret Service: gnome-keyring on a
// private D-Bus session (test/support/servers/secret-service.ts). The built binary stores, reads, moves
// and removes the key there; what the keyring holds is read back with secret-tool, and what was
// sent with the simulator's request log. Skipped, with the reason, where the tools are absent.
import { readFileSync, writeFileSync } from 'node:fs';
import type { HedgeArgs } from '../support/hedge-cli.js';
import { loginWith, readStore, storeFile, writeStore } from '../support/config-store.js';
import { KEY_A } from '../support/keys.js';
import { useProfileSuite } from '../support/profile-suite.js';
import { secretServiceMissing, startSecretService, type SecretService } from '../support/servers/secret-service.js';
import { ok, okJson, exits } from '../support/cli-runs.js';

const missing = secretServiceMissing();
const suite = useProfileSuite('hedge-keyring-');
let secrets: SecretService;

describe.skipIf(missing !== undefined)(
  `the OS keyring (Secret Service)${missing ? ` — skipped: ${missing}` : ''}`,
  () => {
    beforeAll(async () => {
      secrets = await startSecretService();
    });
    afterAll(async () => {
      await secrets?.stop();
    });

    const run = (args: HedgeArgs) => suite.run(args, { env: secrets.env });
    const accountOf = (profile: string) => `${profile}@${suite.tmp.path}`;
    /** What the keyring holds for the profile (null: nothing). */
    const inKeyring = (profile: string) => secrets.lookup(accountOf(profile));
    /** `hedge login --profile PROFILE` with KEY_A on stdin, the keyring there. */
    const login = (profile: string, ...args: string[]) =>
      loginWith(suite.tmp.path, suite.sandbox, KEY_A, ['--profile', profile, ...args], secrets.env);

    it('login keeps the key in the keyring, not the file; every command reads it from there; whoami says so; a keyring profile without its keyring, or with its entry gone, is exit 4 and sends nothing', async () => {
      const { sandbox, simulator, tmp } = suite;
      const { stdout, stderr } = ok(await login('desk', '--json'));
      expect(JSON.parse(stdout)).toMatchObject({ profile: 'desk', key_store: 'keyring' });
      expect(stderr).toContain('its key hpk_test…0001 is in the OS keyring');
      expect(stderr).not.toContain('No OS keyring');
      expect(simulator.requests('GET', '/account').map((entry) => entry.status)).toEqual([200]);

      expect(inKeyring('desk')).toBe(KEY_A);
      const profile = readStore(tmp.path).profiles.desk;
      expect(profile).toMatchObject({ key_keyring: accountOf('desk'), key_shown: 'hpk_test…0001' });
      expect(profile.api_key).toBeUndefined();
      expect(readFileSync(storeFile(tmp.path), 'utf8')).not.toContain(KEY_A);

      sandbox.requestLog.length = 0;
      expect(okJson(await run('whoami --json'))).toMatchObject({
        key_store: { kind: 'keyring', location: `service hedge, account ${accountOf('desk')}` },
        key_check: { status: 'ok' },
      });
      expect(simulator.requests().map((entry) => [entry.path, entry.status])).toEqual([['/account', 200]]);

      expect(okJson(await run('profile list --json'))).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            name: 'desk',
            key_store: 'keyring',
            api_key: 'hpk_test…0001',
            environment: 'test',
          }),
        ]),
      );

      // Without its keyring, or with its entry gone: exit 4, nothing sent.
      sandbox.requestLog.length = 0;
      exits(await suite.run('positions'), 4, 'is in the OS keyring, but no D-Bus session');
      const store = readStore(tmp.path);
      store.profiles.desk.key_keyring = accountOf('someone-removed-it');
      writeStore(tmp.path, store);
      exits(await run('positions'), 4, 'is no longer in the Secret Service');
      expect(sandbox.requestLog).toHaveLength(0);
    });

    it('logout deletes the keyring entry; profile remove takes it with it; a key that moves to a helper leaves the keyring', async () => {
      const { sandbox, tmp } = suite;
      ok(await login('desk'));
      ok(await login('ops'));
      expect([inKeyring('desk'), inKeyring('ops')]).toEqual([KEY_A, KEY_A]);
      expect(okJson(await run('logout --json'))).toEqual({ profile: 'desk', logged_out: true, key_store: 'keyring' });
      expect(inKeyring('desk')).toBeNull();
      expect(readStore(tmp.path).profiles.desk.key_keyring).toBeUndefined();
      ok(await run('profile remove ops'));
      expect(inKeyring('ops')).toBeNull();
      expect(readStore(tmp.path).profiles.ops).toBeUndefined();

      ok(await login('desk'));
      expect(inKeyring('desk')).toBe(KEY_A);
      const keyFile = `${tmp.path}/key.txt`;
      writeFileSync(keyFile, `${KEY_A}\n`, { mode: 0o600 });
      ok(await run(['login', '--profile', 'desk', '--base-url', sandbox.baseUrl, '--key-command', `cat '${keyFile}'`]));
      expect(inKeyring('desk')).toBeNull();
      expect(readStore(tmp.path).profiles.desk).toMatchObject({ key_command: `cat '${keyFile}'` });
    });

    it('login --move-key moves a plain-text key into the keyring and back, asking nothing and sending nothing', async () => {
      const { sandbox, tmp } = suite;
      ok(await login('desk', '--key-store', 'file'));
      expect(readStore(tmp.path).profiles.desk.api_key).toBe(KEY_A);
      expect(inKeyring('desk')).toBeNull();
      sandbox.requestLog.length = 0;

      const move = ok(await run('login --profile desk --move-key'));
      expect(move.stderr).toContain('Moved the key of profile "desk" from the config file');
      expect(inKeyring('desk')).toBe(KEY_A);
      expect(readFileSync(storeFile(tmp.path), 'utf8')).not.toContain(KEY_A);

      expect(okJson(await run('login --profile desk --move-key --json'))).toEqual({
        profile: 'desk',
        key_store: 'keyring',
        moved: false,
      });

      ok(await run('login --profile desk --move-key --key-store file'));
      expect(readStore(tmp.path).profiles.desk.api_key).toBe(KEY_A);
      expect(inKeyring('desk')).toBeNull();
      expect(sandbox.requestLog).toHaveLength(0);
    });
  },
);

// The keeper service's small rules: where its folder is, what a heartbeat says about its keeper at
// a given time (injected clock and pid check), the --metrics and --alert-url parsing, the alert's JSON.
import { hostname } from 'node:os';
import {
  keeperStateDir,
  type Heartbeat,
  livenessByStoreLock,
  livenessOf,
  staleAfterMs,
} from '../../src/features/keeper/keeper-service.js';
import {
  alertPayload,
  parseAlertUrl,
  parseMetricsAddress,
  shownAlertUrl,
} from '../../src/features/keeper/keeper-service.js';

const NOW = Date.parse('2026-03-02T09:00:00Z');

function heartbeat(fields: Partial<Heartbeat>) {
  return {
    pid: 4242,
    host: hostname(),
    interval_s: 60,
    updated_at: new Date(NOW - 10_000).toISOString(),
    ...fields,
  } as Heartbeat;
}

// XDG_STATE_HOME (absolute only) is the journal's state folder too: test/journal/journal.test.ts.
it('keeperStateDir is per user, never the config folder: else ~/.local/state', () => {
  expect(keeperStateDir({ HEDGE_CONFIG_DIR: '/c' }, '/home/u')).toBe('/home/u/.local/state/hedge/keepers');
});

const ago = (ms: number) => new Date(NOW - ms).toISOString();
const judged = (beats: Array<[Partial<Heartbeat>, boolean]>) =>
  beats.map(([fields, alive]) => livenessOf(heartbeat(fields), NOW, () => alive));
it('livenessOf: running while its pid lives and the heartbeat is fresh; hung once it is older than three intervals and a minute; dead when the pid is gone; a keeper on another host is judged by its heartbeat alone', () => {
  const host = 'elsewhere.invalid';
  expect(staleAfterMs(60)).toBe(240_000);
  expect(
    judged([
      [{}, true],
      [{ updated_at: ago(240_000) }, true],
      [{ updated_at: ago(240_001) }, true],
      [{}, false],
      [{ stopped_at: ago(0) }, true],
      [{ host }, false],
      [{ host, updated_at: ago(3_600_000) }, false],
    ]),
  ).toEqual(['running', 'running', 'hung', 'dead', 'stopped', 'elsewhere', 'hung']);
});

const other = { pid: 4242, host: 'desk-3.invalid' };
const beat = (fields: Partial<Heartbeat> = {}) => heartbeat({ host: 'desk-3.invalid', ...fields });
const stopped = beat({ stopped_at: new Date(NOW).toISOString() });
it("livenessByStoreLock (a team store): judged by the store lock's holder and the heartbeat's age, wherever the keeper runs: running, hung, dead, stopped, none; a live holder whose heartbeat is not the one read (another pid or host, or none yet) is a keeper elsewhere", () => {
  expect(
    (
      [
        [other, beat(), 10_000],
        [other, beat(), 240_000],
        [other, beat(), 240_001],
        [undefined, beat(), 10_000],
        [undefined, stopped, 10_000],
        [other, stopped, 10_000],
        [undefined, undefined, undefined],
        [other, undefined, undefined],
        [other, beat({ pid: 4243 }), 10_000],
        [other, beat({ host: 'desk-4.invalid' }), 10_000],
      ] as const
    ).map(([holder, heartbeat, age]) => livenessByStoreLock(holder, heartbeat, age)),
  ).toEqual('running running hung dead stopped stopped none elsewhere elsewhere elsewhere'.split(' '));
});

it('the service options: --metrics: a port alone binds 127.0.0.1; a host or [IPv6] may be named', () => {
  expect(['9464', ':0', '0.0.0.0:9464', '[::1]:9464'].map(parseMetricsAddress)).toEqual([
    { host: '127.0.0.1', port: 9464 },
    { host: '127.0.0.1', port: 0 },
    { host: '0.0.0.0', port: 9464 },
    { host: '::1', port: 9464 },
  ]);
  for (const bad of ['', 'x', '65536', 'host:', 'a b:1'])
    expect(() => parseMetricsAddress(bad), bad).toThrow(/^--metrics: /);
});
it('the service options: --alert-url: https anywhere, http to loopback only; never a user, password or key in it; shown by its origin', () => {
  const good = ['https://hooks.example/services/T0/B0/xyz', 'http://127.0.0.1:8080/hook'];
  expect(good.map(parseAlertUrl)).toEqual(good);
  for (const [url, why] of [
    ['http://hooks.example/x', /plain http/],
    ['https://u:p@hooks.example/x', /user or password/],
    ['https://hooks.example/x?key=hp_live_abcdefgh12345678', /API key/],
    ['ftp://hooks.example/x', /scheme/],
  ] as const)
    expect(() => parseAlertUrl(url)).toThrow(why);
  expect(shownAlertUrl(good[0])).toBe('https://hooks.example/…');
});

const at = '2026-03-02T09:00:00.000Z';
const trigger = (more: Record<string, string>) =>
  ({
    event: 'error',
    at,
    market: 'USDTNGN',
    side: 'sell',
    code: 'exposure_exceeded',
    message: 'over the cap',
    ...more,
  }) as const;
/** The notice of a refused sell (a recovery of a bought drift when `alert` is 'recovered'). */
const notice = (more: Record<string, unknown>, triggered = trigger({})) =>
  alertPayload({
    alert: 'started',
    key: 'refused|USDTNGN sell',
    cause: 'refused',
    market: 'USDTNGN',
    side: 'sell',
    message: 'm',
    since: at,
    at,
    text: 'r',
    trigger: triggered,
    ...more,
  } as Parameters<typeof alertPayload>[0]);

// A started alert (its event with the alert fields on top, its text sanitised): keeper-service-ops.test.ts's alerts.
it('alertPayload: a recovery says so, with none of the event it recovers from', () => {
  const recovered = notice({
    alert: 'recovered',
    key: 'drift|USDTNGN buy',
    cause: 'drift',
    side: 'buy',
    duration_s: 60,
  });
  expect(recovered).toMatchObject({ event: 'recovered', alert: 'recovered', duration_s: 60, message: 'm' });
  expect(recovered.code).toBeUndefined();
});

it("alertPayload: server text in any field is Slack text: Slack's <…> sequences written as entities, escapes made visible", () => {
  const markup =
    '<!channel> <https://evil.example/login|Your key expired: re-authenticate here>\u001b]52;c;ZXZpbA==\u0007';
  const payload = notice(
    { message: `open failed: ${markup}`, text: `hedge keep alert — ${markup}` },
    trigger({ code: 'x<y>', message: markup, hint: markup }),
  );
  const escaped =
    '&lt;!channel&gt; &lt;https://evil.example/login|Your key expired: re-authenticate here&gt;\\x1b]52;c;ZXZpbA==\\x07';
  expect(payload.text).toBe(`hedge keep alert — ${escaped}`);
  expect(payload).toMatchObject({ message: escaped, hint: escaped, code: 'x&lt;y&gt;' });
  for (const value of Object.values(payload))
    if (typeof value === 'string') expect(value).not.toMatch(/[<>\u001b\u0007]/);
});

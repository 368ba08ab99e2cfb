// The keeper service's small rules: where its folder is, what a heartbeat says about its keeper at
// a given time (injected clock and pid check), the --metrics and --alert-url parsing, the alert's JSON.
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../src/core/keep-rules.js';
import {
  keeperStateDir,
  livenessByStoreLock,
  livenessOf,
  staleAfterMs,
} from '../../src/features/keeper/keeper-heartbeat.js';
import {
  alertPayload,
  parseAlertUrl,
  parseKeeperServiceOptions,
  parseMetricsAddress,
  shownAlertUrl,
} from '../../src/features/keeper/keeper-service.js';

const NOW = Date.parse('2026-03-02T09:00:00Z');

function heartbeat(fields: Partial<Heartbeat>): Heartbeat {
  return {
    pid: 4242,
    host: hostname(),
    interval_s: 60,
    updated_at: new Date(NOW - 10_000).toISOString(),
    ...fields,
  } as Heartbeat;
}

describe('keeperStateDir', () => {
  it('is per user, never the config folder: XDG_STATE_HOME (absolute only), else ~/.local/state', () => {
    expect(keeperStateDir({ XDG_STATE_HOME: '/s', HEDGE_CONFIG_DIR: '/c' }, '/home/u')).toBe('/s/hedge/keepers');
    expect(keeperStateDir({ XDG_STATE_HOME: 'relative', HOME: '/h' }, '/home/u')).toBe('/h/.local/state/hedge/keepers');
    expect(keeperStateDir({ HEDGE_CONFIG_DIR: '/c' }, '/home/u')).toBe('/home/u/.local/state/hedge/keepers');
  });
});

describe('livenessOf', () => {
  const alive = () => true;
  const gone = () => false;
  it('running while its pid lives and the heartbeat is fresh; hung once it is older than three intervals and a minute; dead when the pid is gone', () => {
    expect(livenessOf(heartbeat({}), NOW, alive)).toBe('running');
    expect(staleAfterMs(60)).toBe(240_000);
    expect(livenessOf(heartbeat({ updated_at: new Date(NOW - 240_000).toISOString() }), NOW, alive)).toBe('running');
    expect(livenessOf(heartbeat({ updated_at: new Date(NOW - 240_001).toISOString() }), NOW, alive)).toBe('hung');
    expect(livenessOf(heartbeat({}), NOW, gone)).toBe('dead');
    expect(livenessOf(heartbeat({ stopped_at: new Date(NOW).toISOString() }), NOW, alive)).toBe('stopped');
  });
  it('a keeper on another host is judged by its heartbeat alone', () => {
    expect(livenessOf(heartbeat({ host: 'elsewhere.invalid' }), NOW, gone)).toBe('elsewhere');
    expect(
      livenessOf(
        heartbeat({ host: 'elsewhere.invalid', updated_at: new Date(NOW - 3_600_000).toISOString() }),
        NOW,
        gone,
      ),
    ).toBe('hung');
  });
});

describe('livenessByStoreLock (a team store)', () => {
  const other = { pid: 4242, host: 'desk-3.invalid' };
  const beat = (fields: Partial<Heartbeat> = {}) => heartbeat({ host: 'desk-3.invalid', ...fields });
  it("judged by the store lock's holder and the heartbeat's age, wherever the keeper runs: running, hung, dead, stopped, none", () => {
    expect(livenessByStoreLock(other, beat(), 10_000)).toBe('running');
    expect(livenessByStoreLock(other, beat(), 240_000)).toBe('running');
    expect(livenessByStoreLock(other, beat(), 240_001)).toBe('hung');
    expect(livenessByStoreLock(undefined, beat(), 10_000)).toBe('dead');
    expect(livenessByStoreLock(undefined, beat({ stopped_at: new Date(NOW).toISOString() }), 10_000)).toBe('stopped');
    expect(livenessByStoreLock(other, beat({ stopped_at: new Date(NOW).toISOString() }), 10_000)).toBe('stopped');
    expect(livenessByStoreLock(undefined, undefined, undefined)).toBe('none');
  });
  it("a live holder whose heartbeat is not the one read (another pid or host, or none yet) is a keeper elsewhere, not this heartbeat's", () => {
    expect(livenessByStoreLock(other, undefined, undefined)).toBe('elsewhere');
    expect(livenessByStoreLock(other, beat({ pid: 4243 }), 10_000)).toBe('elsewhere');
    expect(livenessByStoreLock(other, beat({ host: 'desk-4.invalid' }), 10_000)).toBe('elsewhere');
  });
});

describe('the service options', () => {
  it('--metrics: a port alone binds 127.0.0.1; a host or [IPv6] may be named', () => {
    expect(parseMetricsAddress('9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseMetricsAddress(':0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(parseMetricsAddress('0.0.0.0:9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(parseMetricsAddress('[::1]:9464')).toEqual({ host: '::1', port: 9464 });
    for (const bad of ['', 'x', '65536', 'host:', 'a b:1'])
      expect(() => parseMetricsAddress(bad), bad).toThrow(/^--metrics: /);
  });
  it('--alert-url: https anywhere, http to loopback only; never a user, password or key in it; shown by its origin', () => {
    expect(parseAlertUrl('https://hooks.example/services/T0/B0/xyz')).toBe('https://hooks.example/services/T0/B0/xyz');
    expect(parseAlertUrl('http://127.0.0.1:8080/hook')).toBe('http://127.0.0.1:8080/hook');
    expect(() => parseAlertUrl('http://hooks.example/x')).toThrow(/plain http/);
    expect(() => parseAlertUrl('https://u:p@hooks.example/x')).toThrow(/user or password/);
    expect(() => parseAlertUrl('https://hooks.example/x?key=hp_live_abcdefgh12345678')).toThrow(/API key/);
    expect(() => parseAlertUrl('ftp://hooks.example/x')).toThrow(/scheme/);
    expect(shownAlertUrl('https://hooks.example/services/T0/B0/xyz')).toBe('https://hooks.example/…');
  });
  it('--alert-headroom: a USD amount of 0 or more', () => {
    expect(parseKeeperServiceOptions({ alertHeadroom: '50,000' })).toEqual({ alertHeadroomUsd: 50_000 });
    expect(() => parseKeeperServiceOptions({ alertHeadroom: '-1' })).toThrow(/^--alert-headroom: /);
    expect(parseKeeperServiceOptions({})).toEqual({});
  });
});

describe('alertPayload', () => {
  it('a started alert carries its event with the alert fields on top; a recovery says so; text is sanitised', () => {
    const trigger = {
      event: 'error' as const,
      at: '2026-03-02T09:00:00.000Z',
      market: 'USDTNGN',
      side: 'sell',
      code: 'exposure_exceeded',
      message: 'over the cap',
    };
    const started = alertPayload({
      alert: 'started',
      key: 'refused|USDTNGN sell',
      cause: 'refused',
      market: 'USDTNGN',
      side: 'sell',
      message: 'm',
      since: trigger.at,
      at: trigger.at,
      text: 'hedge keep alert \u001b[31m— x',
      trigger,
    });
    expect(started).toMatchObject({
      event: 'error',
      code: 'exposure_exceeded',
      alert: 'started',
      cause: 'refused',
      message: 'over the cap',
    });
    expect(String(started.text)).not.toContain('\u001b');
    const recovered = alertPayload({
      alert: 'recovered',
      key: 'drift|USDTNGN buy',
      cause: 'drift',
      market: 'USDTNGN',
      side: 'buy',
      message: 'm',
      since: trigger.at,
      at: trigger.at,
      duration_s: 60,
      text: 'r',
      trigger,
    });
    expect(recovered).toMatchObject({ event: 'recovered', alert: 'recovered', duration_s: 60, message: 'm' });
    expect(recovered.code).toBeUndefined();
  });

  it("server text in any field is Slack text: Slack's <…> sequences written as entities, escapes made visible", () => {
    const markup =
      '<!channel> <https://evil.example/login|Your key expired: re-authenticate here>\u001b]52;c;ZXZpbA==\u0007';
    const trigger = {
      event: 'error' as const,
      at: '2026-03-02T09:00:00.000Z',
      market: 'USDTNGN',
      side: 'sell',
      code: 'x<y>',
      message: markup,
      hint: markup,
    };
    const payload = alertPayload({
      alert: 'started',
      key: 'refused|USDTNGN sell',
      cause: 'refused',
      market: 'USDTNGN',
      side: 'sell',
      message: `open failed: ${markup}`,
      since: trigger.at,
      at: trigger.at,
      text: `hedge keep alert — ${markup}`,
      trigger,
    });
    const escaped =
      '&lt;!channel&gt; &lt;https://evil.example/login|Your key expired: re-authenticate here&gt;\\x1b]52;c;ZXZpbA==\\x07';
    expect(payload.text).toBe(`hedge keep alert — ${escaped}`);
    expect(payload).toMatchObject({ message: escaped, hint: escaped, code: 'x&lt;y&gt;' });
    for (const value of Object.values(payload)) {
      if (typeof value === 'string') expect(value).not.toMatch(/[<>\u001b\u0007]/);
    }
  });
});

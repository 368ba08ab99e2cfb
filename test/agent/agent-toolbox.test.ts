// The agent's tool calls in-process, on a live-shaped key: the toolbox believes the key is live
// (credentials say so), while its client talks to the simulator with the simulator's own test key
// (the context seam), so that a live write confirmed with its token really lands — and everything
// is asserted on the simulator's state and request log, and on the journal on disk.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpConnections } from '../../src/platform/api/transport.js';
import { FileAccess, serverRoots } from '../../src/cli/agent/file-access.js';
import { data, toolboxOn } from './toolbox-on.js';
import { openJournal } from '../../src/platform/journal/index.js';
import { registerSecret } from '../../src/core/security/secrets.js';
import { tempDir } from '../support/hedge-cli.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { everything, expectRefused } from './answers.js';

const BUY = { market: MARKET, side: 'buy' };

const LIVE_KEY = 'hpk_live_AgentToolboxLiveKey0001';
registerSecret(LIVE_KEY);
const startSimulator = useSimulators();
// The calls' own clients share one set of connections, closed when the file ends.
const connections = new HttpConnections();
afterAll(() => connections.close());

const liveToolbox = (simulator: Simulator, options: { allowLive: boolean; files?: FileAccess }) =>
  toolboxOn(simulator, connections, { liveKey: LIVE_KEY, ...options });

const OPEN_ARGS = { ...BUY, notional: '10k', tenor: 3, ref: 'DEAL-7' };

describe('a live key with --allow-live', () => {
  it('the first call sends nothing and previews the quote and the exact request; the token sends it once, journaled', async () => {
    const simulator = await startSimulator();
    const { toolbox, call } = liveToolbox(simulator, { allowLive: true });
    expect(toolbox.list().find((tool) => tool.name === 'open')?.inputSchema).toMatchObject({
      properties: { confirmation_token: { type: 'string' } },
    });

    const first = await call('open', OPEN_ARGS);
    expect(first.isError).toBeUndefined();
    const preview = data(first);
    expect(preview).toMatchObject({ sent: false, tool: 'open', arguments: OPEN_ARGS });
    expect(preview.preview.dry_run).toMatchObject({
      dry_run: true,
      method: 'POST',
      path: '/hedges',
      url: `${simulator.baseUrl}/hedges`,
      body: { ...BUY, notional_usd: 10000, tenor_days: 3, client_reference: 'DEAL-7' },
    });
    expect(preview.preview.dry_run.headers.Authorization).toBe('Bearer hpk_live…0001');
    expect(preview.preview.quote).toMatchObject({ ...BUY, notional_usd: 10000, tenor_days: 3 });
    expect(preview.confirmation_token).toMatch(/^hct_[A-Za-z0-9_-]{24}$/);
    expect(preview.expires_in_seconds).toBe(120);
    expect(preview.expires_at).toBe(new Date(1_000_000 + 120_000).toISOString());
    expect(first.content[1].text).toContain(
      ' LIVE  production key hpk_live…0001: this will open a hedge with real funds.',
    );
    // Reads only (the pre-trade checks and the quote): no write reached the server, none was journaled.
    expect(simulator.requests('POST').map((entry) => entry.path)).toEqual(['/quotes']);
    expect(simulator.hedges()).toEqual([]);
    const journal = openJournal({ dir: simulator.configDir });
    expect(await journal.list()).toEqual([]);

    const confirmed = await call('open', { ...OPEN_ARGS, confirmation_token: preview.confirmation_token });
    expect(confirmed.isError).toBeUndefined();
    const hedge = data(confirmed);
    expect(hedge).toMatchObject({ ...BUY, notional_usd: 10000, status: 'filled' });
    expect(
      simulator.hedges().map((state) => [state.id, state.status, state.notionalUsd, state.clientReference]),
    ).toEqual([[hedge.id, 'filled', 10000, 'DEAL-7']]);
    expect(simulator.requests('POST', '/hedges')).toHaveLength(1);
    expect(
      (await journal.list()).map((entry) => [entry.command, entry.environment, entry.outcome, entry.hedge_id]),
    ).toEqual([['open', 'live', 'filled', hedge.id]]);
  });

  it('a bad argument is refused by the command parser, naming it, with no token and nothing sent', async () => {
    const simulator = await startSimulator();
    const { call } = liveToolbox(simulator, { allowLive: true });
    const result = await call('open', { ...OPEN_ARGS, tenor: 2 });
    expect(result.isError).toBe(true);
    expect(data(result)).toEqual({
      error: {
        code: 'usage',
        class: 'usage',
        message: 'tenor: "2" is not allowed; expected 1, 3 or 7 (days).',
        details: {},
        status: null,
        argument: 'tenor',
      },
      exit_code: 2,
    });
    expect(everything(result)).not.toContain('confirmation_token":');
    expect(simulator.requests()).toEqual([]);
  });

  it('a token confirms the plan it previewed, not the file: apply of a file rewritten since is refused with the new preview, nothing sent', async () => {
    const simulator = await startSimulator();
    simulator.seedOpen('buy', 10_000);
    const desk = tempDir('hedge-toolbox-desk-');
    try {
      const target = (notional: number) =>
        writeFileSync(
          join(desk.path, 'target.csv'),
          `market,side,notional_usd,tenor_days\n${MARKET},buy,${notional},7\n`,
        );
      const { call } = liveToolbox(simulator, {
        allowLive: true,
        files: new FileAccess(await serverRoots([desk.path], desk.path), desk.path),
      });
      const adds = () => simulator.requests('POST', '/hedges/add').map((entry) => (entry.body as any).notional_usd);

      // Previewed at add 1,000; the file then says 65,000 (add 55,000) when the token comes back.
      target(11_000);
      const shown = data(await call('apply', { file: 'target.csv' }));
      expect(shown.preview.dry_run.steps).toMatchObject([{ action: 'add', delta_usd: 1_000 }]);
      target(65_000);
      const refused = await call('apply', { file: 'target.csv', confirmation_token: shown.confirmation_token });
      expectRefused(refused, {
        error: { code: 'preview_changed', class: 'rejected', details: { previewed_usd: 1_000, now_usd: 55_000 } },
        exit_code: 3,
      });
      expect(data(refused).error.message).toMatch(
        /^confirmation_token: what this call would send now is not what its preview showed .*; nothing was sent\./,
      );
      const fresh = data(refused).new_preview;
      expect(fresh).toMatchObject({
        sent: false,
        tool: 'apply',
        preview: { dry_run: { steps: [{ action: 'add', delta_usd: 55_000 }] } },
      });
      expect(fresh.confirmation_token).not.toBe(shown.confirmation_token);
      expect(adds()).toEqual([]);
      expect(await openJournal({ dir: simulator.configDir }).list()).toEqual([]);

      // The file put back as the new preview did not show it: that token is refused too.
      target(11_000);
      const back = await call('apply', { file: 'target.csv', confirmation_token: fresh.confirmation_token });
      expect(data(back).new_preview.preview.dry_run.steps).toMatchObject([{ action: 'add', delta_usd: 1_000 }]);
      expect(adds()).toEqual([]);
      // And the plan as previewed goes ahead with its token.
      const confirmed = await call('apply', {
        file: 'target.csv',
        confirmation_token: data(back).new_preview.confirmation_token,
      });
      expect(confirmed.isError, confirmed.content[0].text).toBeUndefined();
      expect(adds()).toEqual([1_000]);
    } finally {
      desk.remove();
    }
  });

  it('resume needs the journal id it is to finish, so that the token is bound to that entry', async () => {
    const simulator = await startSimulator();
    const { call } = liveToolbox(simulator, { allowLive: true });
    const result = await call('resume', {});
    expect(data(result).error).toMatchObject({ code: 'usage', argument: 'id' });
    expect(simulator.requests()).toEqual([]);
  });
});

// The operator's limits on an agent (hedge mcp --max-notional, --max-daily-notional, --markets),
// in-process against the simulator: a call over a limit is a tool error of the documented code and
// nothing is written to the server (its request log) or the journal; the daily cap counts only the
// agent's own journal entries; and a live write's confirmation step previews the numbers.
// On a live-shaped key (toolbox-on.ts: the toolbox believes the key is live, its client talks to the
// simulator with the simulator's own test key) a write confirmed with its token really lands.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAgentLimits, type AgentLimits } from '../../src/cli/agent/toolbox.js';
import { FileAccess, serverRoots } from '../../src/cli/agent/file-access.js';
import { useToolboxes } from './toolbox-on.js';
import { colleagueAdds, MARKET, useSimulators } from '../support/simulator.js';
import { BUY, everything, expectDone, expectRefused, journal, json } from './answers.js';
import { ok } from '../support/cli-runs.js';
import { tempDir } from '../support/hedge-cli.js';

const startSimulator = useSimulators();
/** A toolbox on the simulator: a test key, or `live` (a live-shaped key allowed to write); under `limits`. */
const toolboxOn = useToolboxes();

/** A simulator whose buy side holds `held` (nothing at 0), and a toolbox on it under `limits` on a live-shaped key allowed to write. */
async function liveOn(held: number, limits: AgentLimits = {}, files?: FileAccess) {
  const simulator = await startSimulator();
  if (held) simulator.seedOpen('buy', held);
  return { simulator, ...toolboxOn(simulator, { limits, files, live: true }) };
}

it("--max-notional: counts the side's notional for close and twice it for roll (read from the book, nothing written)", async () => {
  const simulator = await startSimulator();
  simulator.seedOpen('buy', 10_000);
  const { call } = toolboxOn(simulator, { limits: { maxNotionalUsd: 15_000 } });
  expect(json(await call('roll', { ...BUY, tenor: 7 })).error).toMatchObject({
    code: 'max_notional_exceeded',
    details: { this_call_usd: 20_000 },
  });
  expect(simulator.writes()).toEqual([]);
  expect(simulator.requests('GET', '/positions').length).toBeGreaterThan(0);
  expectDone(await call('close', BUY));
  expect(simulator.writes().map((entry) => entry.path)).toEqual(['/hedges/close']);
});

it("--max-daily-notional: counts the agent's journal entries of the last 24 h (not the CLI's); refuses past the cap with when it frees", async () => {
  const simulator = await startSimulator();
  ok(await simulator.hedge(['open', MARKET, 'sell', '20000', '--tenor', '3', '--json']));
  const { call } = toolboxOn(simulator, { limits: { maxDailyNotionalUsd: 15_000 } });
  expectDone(await call('open', { ...BUY, notional: 10_000, tenor: 3 }));
  const before = simulator.writes().length;

  const refused = json(await call('add', { ...BUY, notional: 6_000 }));
  expect(refused).toMatchObject({
    error: {
      code: 'max_daily_notional_exceeded',
      class: 'rejected',
      details: { this_call_usd: 6_000, used_last_24h_usd: 10_000, max_daily_notional_usd: 15_000, room_usd: 5_000 },
    },
    exit_code: 3,
  });
  const agentEntry = (await journal(simulator)).find((entry) => entry.via === 'agent')!;
  expect(refused.error.details.frees_at).toBe(new Date(Date.parse(agentEntry.created_at) + 86_400_000).toISOString());
  expect(simulator.writes()).toHaveLength(before);

  // Exactly up to the cap is allowed.
  expectDone(await call('add', { ...BUY, notional: 5_000 }));
  expect((await journal(simulator)).filter((entry) => entry.via === 'agent').map((entry) => entry.command)).toEqual([
    'add',
    'open',
  ]);
});

it('--markets: limits are checked when the server starts: bad values are usage errors', () => {
  // The amounts of --max-notional and --max-daily-notional, read and refused: test/cli/usd-amounts.test.ts.
  expect(parseAgentLimits({ markets: 'usdtngn, USDTKES,usdtngn' })).toEqual({
    maxNotionalUsd: undefined,
    maxDailyNotionalUsd: undefined,
    markets: ['USDTNGN', 'USDTKES'],
  });
  expect(() => parseAgentLimits({ maxDailyNotional: '-5' })).toThrow(/^--max-daily-notional: /);
  expect(() => parseAgentLimits({ markets: ' , ' })).toThrow(/^--markets: /);
});

it('the confirmation step of a live write previews the numbers: add: the limits, the position and the quote of the addition; reduce: its share of the position; nothing sent', async () => {
  const { simulator, call } = await liveOn(10_000, { maxNotionalUsd: 50_000 });
  const add = json(await call('add', { ...BUY, notional: 2_500 }));
  expect(add).toMatchObject({
    sent: false,
    tool: 'add',
    preview: {
      dry_run: { method: 'POST', path: '/hedges/add' },
      position: { ...BUY, notional_usd: 10_000 },
      quote: { ...BUY, notional_usd: 2_500, tenor_days: 7 },
    },
  });
  expect(add.preview.limits).toEqual({ this_call_usd: 2_500, max_notional_usd: 50_000 });

  expect(json(await call('reduce', { ...BUY, notional: 2_500 })).preview).toMatchObject({
    share_of_position: 0.25,
    position: { notional_usd: 10_000 },
  });
  expect(simulator.requests('POST').map((entry) => entry.path)).toEqual(['/quotes']);
});

it('a live token binds the side as previewed; the limits judge it as it is when sent: close previewed at 100 under a 1,000 cap, the side grown to 50,000: nothing sent, the new preview refused by the cap', async () => {
  const { simulator, call } = await liveOn(100, { maxNotionalUsd: 1_000 });
  const shown = json(await call('close', BUY));
  // A close's preview: the limits, and the position it returns.
  expect(shown.preview.limits).toEqual({ this_call_usd: 100, max_notional_usd: 1_000 });
  expect(typeof shown.preview.position.net_margin_usd).toBe('number');
  await colleagueAdds(simulator, 'buy', 49_900);

  const refused = await call('close', { ...BUY, confirmation_token: shown.confirmation_token });
  // The side as it is now is over the cap: its preview is refused (no token), and the answer says why it came.
  expectRefused(refused, {
    error: { code: 'max_notional_exceeded', details: { this_call_usd: 50_000, max_notional_usd: 1_000 } },
    exit_code: 3,
  });
  expect(refused.content.at(-1)!.text).toMatch(
    /^confirmation_token: what this call would send now is not what its preview showed \(100\.00 USD traded then, 50,000\.00 USD now\): the side, the book or the target file changed since; nothing was sent\./,
  );
  expect(simulator.requests('POST', '/hedges/close')).toEqual([]);
  expect(simulator.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([50_000]);
  expect(await journal(simulator)).toEqual([]);
});

it('a live token binds the side as previewed; the limits judge it as it is when sent: roll: the new hedge it would open is the side as previewed; grown since, nothing sent and a new preview', async () => {
  const { simulator, call } = await liveOn(100);
  const shown = json(await call('roll', { ...BUY, tenor: 7 }));
  await colleagueAdds(simulator, 'buy', 49_900);
  const refused = json(await call('roll', { ...BUY, tenor: 7, confirmation_token: shown.confirmation_token }));
  expect(refused).toMatchObject({
    error: { code: 'preview_changed', details: { previewed_usd: 200, now_usd: 100_000 } },
    new_preview: { sent: false, tool: 'roll' },
  });
  expect(refused.new_preview.confirmation_token).not.toBe(shown.confirmation_token);
  // Quotes only (the previews'), beside the colleague's add.
  expect(simulator.writes().map((entry) => entry.path)).toEqual(['/quotes', '/hedges/add', '/quotes']);
  expect(simulator.active('buy').map((hedge) => hedge.notionalUsd)).toEqual([50_000]);
});

const OPEN_ARGS = { ...BUY, notional: '10k', tenor: 3, ref: 'DEAL-7' };

it('a live key with --allow-live: a bad argument is refused by the command parser, naming it, with no token and nothing sent, and so is a resume without the journal id its token is to be bound to; the first good call sends nothing and previews the quote and the exact request; the token sends it once, journaled', async () => {
  const { simulator, toolbox, call } = await liveOn(0);
  const result = await call('open', { ...OPEN_ARGS, tenor: 2 });
  expect(result.isError).toBe(true);
  expect(json(result)).toEqual({
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
  // Resume needs the journal id it is to finish, so that the token is bound to that entry.
  expect(json(await call('resume', {})).error).toMatchObject({ code: 'usage', argument: 'id' });
  expect(simulator.requests()).toEqual([]);

  expect(toolbox.list().find((tool) => tool.name === 'open')?.inputSchema).toMatchObject({
    properties: { confirmation_token: { type: 'string' } },
  });

  const first = await call('open', OPEN_ARGS);
  expect(first.isError).toBeUndefined();
  const preview = json(first);
  const asked = { ...BUY, notional_usd: 10000, tenor_days: 3 };
  expect(preview).toMatchObject({
    sent: false,
    tool: 'open',
    arguments: OPEN_ARGS,
    preview: {
      dry_run: {
        dry_run: true,
        method: 'POST',
        path: '/hedges',
        url: `${simulator.baseUrl}/hedges`,
        body: { ...asked, client_reference: 'DEAL-7' },
        headers: { Authorization: 'Bearer hpk_live…0001' },
      },
      quote: asked,
    },
    confirmation_token: expect.stringMatching(/^hct_[A-Za-z0-9_-]{24}$/),
    expires_in_seconds: 120,
    expires_at: new Date(1_000_000 + 120_000).toISOString(),
  });
  expect(first.content[1].text).toContain(
    ' LIVE  production key hpk_live…0001: this will open a hedge with real funds.',
  );
  // Reads only (the pre-trade checks and the quote): no write reached the server, none was journaled.
  expect(simulator.requests('POST').map((entry) => entry.path)).toEqual(['/quotes']);
  expect(simulator.hedges()).toEqual([]);
  expect(await journal(simulator)).toEqual([]);

  const confirmed = await call('open', { ...OPEN_ARGS, confirmation_token: preview.confirmation_token });
  expect(confirmed.isError).toBeUndefined();
  const hedge = json(confirmed);
  expect(hedge).toMatchObject({ ...BUY, notional_usd: 10000, status: 'filled' });
  expect(simulator.hedges().map((state) => [state.id, state.status, state.notionalUsd, state.clientReference])).toEqual(
    [[hedge.id, 'filled', 10000, 'DEAL-7']],
  );
  expect(simulator.sends('/hedges')).toHaveLength(1);
  expect(await journal(simulator)).toMatchObject([
    { command: 'open', environment: 'live', outcome: 'filled', hedge_id: hedge.id },
  ]);
});

it('a live key with --allow-live: a token confirms the plan it previewed, not the file: apply of a file rewritten since is refused with the new preview, nothing sent', async () => {
  const desk = tempDir('hedge-toolbox-desk-');
  try {
    const target = (notional: number) =>
      writeFileSync(
        join(desk.path, 'target.csv'),
        `market,side,notional_usd,tenor_days\n${MARKET},buy,${notional},7\n`,
      );
    const { simulator, call } = await liveOn(
      10_000,
      {},
      new FileAccess(await serverRoots([desk.path], desk.path), desk.path),
    );
    const adds = () => simulator.requests('POST', '/hedges/add').map((entry) => (entry.body as any).notional_usd);
    /** Apply of target.csv, with the token a preview gave when there is one. */
    const apply = (preview?: { confirmation_token: string }) =>
      call('apply', { file: 'target.csv', ...(preview && { confirmation_token: preview.confirmation_token }) });

    // Previewed at add 1,000; the file then says 65,000 (add 55,000) when the token comes back.
    target(11_000);
    const shown = json(await apply());
    expect(shown.preview.dry_run.steps).toMatchObject([{ action: 'add', delta_usd: 1_000 }]);
    target(65_000);
    const refused = await apply(shown);
    expectRefused(refused, {
      error: {
        code: 'preview_changed',
        class: 'rejected',
        details: { previewed_usd: 1_000, now_usd: 55_000 },
        message: expect.stringMatching(
          /^confirmation_token: what this call would send now is not what its preview showed .*; nothing was sent\./,
        ),
      },
      exit_code: 3,
    });
    const fresh = json(refused).new_preview;
    expect(fresh).toMatchObject({
      sent: false,
      tool: 'apply',
      preview: { dry_run: { steps: [{ action: 'add', delta_usd: 55_000 }] } },
    });
    expect(fresh.confirmation_token).not.toBe(shown.confirmation_token);
    expect(adds()).toEqual([]);
    expect(await journal(simulator)).toEqual([]);

    // The file put back as the new preview did not show it: that token is refused too.
    target(11_000);
    const back = json(await apply(fresh)).new_preview;
    expect(back.preview.dry_run.steps).toMatchObject([{ action: 'add', delta_usd: 1_000 }]);
    expect(adds()).toEqual([]);
    // And the plan as previewed goes ahead with its token.
    const confirmed = await apply(back);
    expect(confirmed.isError, confirmed.content[0].text).toBeUndefined();
    expect(adds()).toEqual([1_000]);
  } finally {
    desk.remove();
  }
});

// hedge keep run as a service: one keeper per account across config folders, alerts
// once per row and cause with a recovery (to --alert-cmd and --alert-url), `hedge keep status`
// from another terminal, and --metrics. Real processes against the simulator; every assertion is
// on the server's own state, its request log, or what the keeper and the receivers were sent.
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { separateProcesses, tempDir } from '../support/hedge-cli.js';
import { describeWithPostgres } from '../support/servers/postgres.js';
import { until } from '../support/polling.js';
import { teamOf } from '../support/team.js';
import { MARKET, useSimulators, type Simulator } from '../support/simulator.js';
import { followKeeper, type KeeperRun } from '../support/keeper.js';

// Each run a process of its own: what is tested here is between hedge processes.
separateProcesses();

const startSimulator = useSimulators();
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Keeper = KeeperRun;

/** `hedge keep FILE` with NDJSON on stdout, each line parsed as it comes; SIGTERMed after the test if still running. */
function startKeeper(
  simulator: Simulator,
  file: string,
  extra: string[],
  options: { configDir?: string; env?: Record<string, string> } = {},
): Keeper {
  const run = followKeeper((onSpawn) =>
    simulator.hedge(['keep', file, '--interval', '2', ...extra], { ...options, onSpawn }),
  );
  cleanups.push(async () => {
    const child = run.child();
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await run.done.catch(() => undefined);
  });
  return run;
}

function writeTarget(dir: string, rows: string[]): string {
  const file = join(dir, 'target.csv');
  writeFileSync(file, ['market,side,notional_usd,tenor_days', ...rows].join('\n') + '\n');
  return file;
}

function activeNotional(simulator: Simulator, side: 'buy' | 'sell'): number {
  return simulator.active(side).reduce((sum, hedge) => sum + hedge.notionalUsd, 0);
}

/** A local webhook receiver: every POST body, parsed. */
async function receiver(): Promise<{ url: string; posts: Array<Record<string, any>>; server: Server }> {
  const posts: Array<Record<string, any>> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      posts.push({ ...JSON.parse(body), _contentType: request.headers['content-type'] });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}/hooks/desk-alerts`, posts, server };
}

describe('hedge keep as a service', () => {
  it('one keeper per account across config folders: a second keeper with the same key and host, another HEDGE_CONFIG_DIR, exits 11 naming the first', async () => {
    const simulator = await startSimulator();
    // One user's home (its ~/.local/state/hedge), two config folders: a systemd unit's and an operator's shell's.
    const home = tempDir('hedge-home-');
    const shell = tempDir('hedge-shell-');
    cleanups.push(
      () => home.remove(),
      () => shell.remove(),
    );
    const file = writeTarget(simulator.configDir, [`${MARKET},buy,1000,3`]);
    const first = startKeeper(simulator, file, [], { env: { HOME: home.path } });
    await until(() => first.events.some((event) => event.event === 'cycle'), "the first keeper's first cycle", {
      process: first.done,
    });
    await until(() => activeNotional(simulator, 'buy') === 1000, 'the first open');

    const second = await simulator.hedge(['keep', file, '--once'], { configDir: shell.path, env: { HOME: home.path } });
    expect(second.code, second.stderr).toBe(11);
    expect(second.stderr).toContain(`pid ${first.child().pid}`);
    expect(second.stderr).toContain(`config folder ${simulator.configDir}`);
    expect(second.stderr).toMatch(/since \d{4}-\d\d-\d\dT/);
    // The second keeper sent nothing: one open on the server, the side at its target.
    expect(simulator.writes().filter((entry) => entry.path === '/hedges')).toHaveLength(1);
    expect(activeNotional(simulator, 'buy')).toBe(1000);

    // The same with XDG_STATE_HOME naming the per-user place, and once the first stops the place is free.
    first.child().kill('SIGTERM');
    expect((await first.done).code).toBe(0);
    const third = await simulator.hedge(['keep', file, '--once'], { configDir: shell.path, env: { HOME: home.path } });
    expect(third.code, third.stderr).toBe(0);
    expect(simulator.writes().filter((entry) => entry.path === '/hedges')).toHaveLength(1);
  });

  it('two failing rows over many cycles: one alert per row to --alert-cmd and --alert-url, and one "recovered" each once they are at target', async () => {
    const simulator = await startSimulator({ exposureCapUsd: 50_000 });
    const hook = await receiver();
    const file = writeTarget(simulator.configDir, [`${MARKET},sell,900000,1`, `${MARKET},buy,900000,3`]);
    const commandLog = join(simulator.configDir, 'alerts.ndjson');
    const keeper = startKeeper(simulator, file, ['--alert-cmd', `cat >> ${commandLog}`, '--alert-url', hook.url]);
    const errorsOf = (side: string) =>
      keeper.events.filter(
        (event) => event.event === 'error' && event.side === side && event.code === 'exposure_exceeded',
      ).length;
    // Each row refused twice (a back-off of one interval between): the errors repeat, the alerts must not.
    await until(() => errorsOf('sell') >= 2 && errorsOf('buy') >= 2, 'two refusals of each row', {
      process: keeper.done,
    });
    await until(() => hook.posts.length >= 2, 'the two alerts posted', { timeoutMs: 15_000 });
    expect(hook.posts.map((post) => `${post.alert} ${post.cause} ${post.side}`).sort()).toEqual([
      'started refused buy',
      'started refused sell',
    ]);
    for (const post of hook.posts) {
      expect(post._contentType).toBe('application/json');
      expect(post.text).toContain(`${MARKET} ${post.side}: refused`);
      expect(post).toMatchObject({ event: 'error', code: 'exposure_exceeded', market: MARKET });
      expect(JSON.stringify(post)).not.toContain(simulator.apiKey);
    }
    // Nothing was opened on either side while refused.
    expect(simulator.active('sell')).toHaveLength(0);
    expect(simulator.active('buy')).toHaveLength(0);

    // The target comes within the cap: both rows open, and each alert clears once.
    writeTarget(simulator.configDir, [`${MARKET},sell,1000,1`, `${MARKET},buy,2000,3`]);
    keeper.child().kill('SIGHUP');
    await until(() => hook.posts.filter((post) => post.alert === 'recovered').length >= 2, 'two recoveries posted', {
      process: keeper.done,
    });
    expect(activeNotional(simulator, 'sell')).toBe(1000);
    expect(activeNotional(simulator, 'buy')).toBe(2000);
    const cyclesAfter = keeper.events.filter((event) => event.event === 'cycle').length;
    await until(
      () => keeper.events.filter((event) => event.event === 'cycle').length >= cyclesAfter + 1,
      'one more cycle',
      { process: keeper.done },
    );
    keeper.child().kill('SIGTERM');
    expect((await keeper.done).code).toBe(0);

    const summary = hook.posts.map((post) => `${post.alert} ${post.cause} ${post.side}`).sort();
    expect(summary).toEqual([
      'recovered refused buy',
      'recovered refused sell',
      'started refused buy',
      'started refused sell',
    ]);
    const recovered = hook.posts.find((post) => post.alert === 'recovered')!;
    expect(recovered).toMatchObject({ event: 'recovered', market: MARKET });
    expect(recovered.text).toMatch(/recovered/);
    expect(typeof recovered.duration_s).toBe('number');
    // --alert-cmd got the very same alerts, one JSON line each.
    const viaCommand = readFileSync(commandLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(viaCommand.map((alert) => `${alert.alert} ${alert.cause} ${alert.side}`).sort()).toEqual(summary);
    // And the keeper's own log says each alert once.
    expect(keeper.events.filter((event) => event.event === 'alert')).toHaveLength(4);
  });

  it('server text in an alert is Slack text at --alert-url and --alert-cmd: no channel ping, no link behind a label, no escape byte', async () => {
    const simulator = await startSimulator();
    const hook = await receiver();
    const markup = '<!channel> <https://evil.example/login|Your key expired: re-authenticate here>';
    simulator.sandbox.setFaults({
      nextError: { count: 1, status: 400, code: 'capacity_exceeded', message: `${markup} \u001b]52;c;ZXZpbA==\u0007` },
      match: { method: 'POST', path: '/hedges' },
    });
    const file = writeTarget(simulator.configDir, [`${MARKET},sell,1000,1`]);
    const commandLog = join(simulator.configDir, 'alerts.ndjson');
    const result = await simulator.hedge([
      'keep',
      file,
      '--once',
      '--alert-url',
      hook.url,
      '--alert-cmd',
      `cat >> ${commandLog}`,
    ]);
    expect(result.code, result.stderr).toBe(3);
    expect(simulator.active('sell')).toHaveLength(0);

    const viaCommand = readFileSync(commandLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(hook.posts).toHaveLength(1);
    expect(viaCommand).toHaveLength(1);
    const escaped =
      '&lt;!channel&gt; &lt;https://evil.example/login|Your key expired: re-authenticate here&gt; \\x1b]52;c;ZXZpbA==\\x07';
    for (const alert of [hook.posts[0]!, viaCommand[0]!]) {
      expect(alert).toMatchObject({
        alert: 'started',
        cause: 'refused',
        code: 'capacity_exceeded',
        market: MARKET,
        side: 'sell',
      });
      expect(alert.text).toContain(`${MARKET} sell: refused`);
      expect(alert.text).toContain(escaped);
      expect(alert.message).toContain(escaped);
      // The values as parsed (a JSON escape such as \u003c shows here as the character): none came through raw.
      for (const value of Object.values(alert))
        if (typeof value === 'string') expect(value).not.toMatch(/[<>\u001b\u0007]/);
    }
  });

  it('a side that settled instead of rolling is alerted (missed_roll), and recovered once the keeper has it covered again', async () => {
    const simulator = await startSimulator();
    const hook = await receiver();
    const file = join(simulator.configDir, 'target.csv');
    writeFileSync(file, `market,side,notional_usd,tenor_days,roll_before\n${MARKET},sell,2000,1,6h\n`);
    const keeper = startKeeper(simulator, file, ['--alert-url', hook.url]);
    const coveredCycle = () =>
      keeper.events.some((event) => event.event === 'cycle' && event.rows?.[0]?.current_usd === 2000);
    await until(coveredCycle, 'a cycle that saw the side covered', { process: keeper.done });
    const first = simulator.active('sell')[0]!;
    // Past the maturity in one step: the hedge settles on the server before any cycle could roll it.
    simulator.advance(30 * 3_600_000);
    await until(
      () => hook.posts.some((post) => post.alert === 'recovered' && post.cause === 'missed_roll'),
      'the missed roll and its recovery',
      { process: keeper.done },
    ).catch((error: Error) => {
      throw new Error(
        `${error.message}\nkeeper events:\n${keeper.events.map((event) => JSON.stringify(event)).join('\n')}\nalerts posted: ${JSON.stringify(hook.posts)}`,
      );
    });
    expect(simulator.hedges().find((hedge) => hedge.id === first.id)!.status).not.toBe('filled');
    expect(activeNotional(simulator, 'sell')).toBe(2000);
    expect(hook.posts.map((post) => `${post.alert} ${post.cause}`)).toEqual([
      'started missed_roll',
      'recovered missed_roll',
    ]);
    expect(hook.posts[0]).toMatchObject({ event: 'alert', market: MARKET, side: 'sell' });
    expect(hook.posts[0]!.text).toContain('settled instead of being rolled');
  });

  it("a side seen covered while the keeper's own re-open was still in flight, then settled, is a missed roll too", async () => {
    const simulator = await startSimulator();
    const hook = await receiver();
    const file = join(simulator.configDir, 'target.csv');
    writeFileSync(file, `market,side,notional_usd,tenor_days,roll_before\n${MARKET},sell,2000,1,6h\n`);
    // The re-open's first look at its hedge is held 3 s: its step is still in flight at the next
    // cycle (2 s), which finds the side covered and does not decide it.
    simulator.sandbox.setFaults({
      nextLatency: { count: 1, ms: 3_000 },
      match: { method: 'GET', path: /^\/hedges\/[^/]+$/ },
    });
    const keeper = startKeeper(simulator, file, ['--alert-url', hook.url]);
    const coveredInFlight = () =>
      keeper.events.some(
        (event) =>
          event.event === 'cycle' && event.rows?.[0]?.current_usd === 2000 && /in flight/.test(event.rows[0].state),
      );
    await until(coveredInFlight, 'a cycle that saw the side covered with the re-open in flight', {
      process: keeper.done,
    });
    const seenInFlight = keeper.events.filter((event) => event.event === 'cycle').at(-1)!;
    // That cycle's status says when the side's roll is due, though the keeper did not decide it.
    expect(seenInFlight.rows[0]).toMatchObject({ next_action: 'roll', next_action_at: expect.any(String) });
    await until(() => keeper.events.some((event) => event.event === 'reopen'), 'the re-open done', {
      process: keeper.done,
    });
    const first = simulator.active('sell')[0]!;
    simulator.advance(30 * 3_600_000);
    // A bound for a machine under load, not a margin.
    await until(() => hook.posts.some((post) => post.alert === 'recovered'), 'an alert and its recovery', {
      process: keeper.done,
    });
    expect(hook.posts.map((post) => `${post.alert} ${post.cause}`)).toEqual([
      'started missed_roll',
      'recovered missed_roll',
    ]);
    expect(simulator.hedges().find((hedge) => hedge.id === first.id)!.status).not.toBe('filled');
    expect(activeNotional(simulator, 'sell')).toBe(2000);
  });

  it('cron-style --once runs carry their alerts on: a row refused at every run is alerted once, and its recovery is sent by a later run', async () => {
    const simulator = await startSimulator({ exposureCapUsd: 50_000 });
    const file = writeTarget(simulator.configDir, [`${MARKET},sell,900000,1`]);
    const commandLog = join(simulator.configDir, 'alerts.ndjson');
    for (let run = 0; run < 3; run += 1) {
      const result = await simulator.hedge(['keep', file, '--once', '--alert-cmd', `cat >> ${commandLog}`]);
      expect(result.code, result.stderr).toBe(3);
    }
    expect(simulator.writes().filter((entry) => entry.path === '/hedges')).toHaveLength(3);
    const alerted = () =>
      readFileSync(commandLog, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
    expect(alerted().map((alert) => `${alert.alert} ${alert.cause}`)).toEqual(['started refused']);
    writeTarget(simulator.configDir, [`${MARKET},sell,1000,1`]);
    expect((await simulator.hedge(['keep', file, '--once'])).code).toBe(0);
    await until(
      () => activeNotional(simulator, 'sell') === 1000 && simulator.active('sell')[0]!.status === 'filled',
      'the fill',
    );
    expect((await simulator.hedge(['keep', file, '--once', '--alert-cmd', `cat >> ${commandLog}`])).code).toBe(0);
    expect(alerted().map((alert) => `${alert.alert} ${alert.cause}`)).toEqual(['started refused', 'recovered refused']);
  });

  it('`hedge keep status` from another config folder shows the running keeper (exit 0), then a keeper killed with -9 as dead (exit 15)', async () => {
    const simulator = await startSimulator();
    const home = tempDir('hedge-home-');
    const other = tempDir('hedge-other-');
    cleanups.push(
      () => home.remove(),
      () => other.remove(),
    );
    const file = writeTarget(simulator.configDir, [`${MARKET},sell,1500,3`]);
    const keeper = startKeeper(simulator, file, [], { env: { HOME: home.path } });
    // Two cycles, the last of them with the re-open landed in every view and its step ended (the
    // step waits for the positions list too, so on a loaded machine the second cycle may still find
    // it in flight — showing the roll time all the same).
    await until(
      () =>
        keeper.events.filter((event) => event.event === 'cycle').length >= 2 &&
        keeper.events.filter((event) => event.event === 'cycle').at(-1)?.rows?.[0]?.next_action === 'roll' &&
        !/in flight/.test(keeper.events.filter((event) => event.event === 'cycle').at(-1)!.rows[0].state),
      'two cycles, the side covered',
      { process: keeper.done },
    );

    const status = await simulator.hedge(['keep', 'status', '--json'], {
      configDir: other.path,
      env: { HOME: home.path },
    });
    expect(status.code, status.stderr).toBe(0);
    const shown = JSON.parse(status.stdout);
    expect(shown.state).toBe('running');
    expect(shown.heartbeat).toMatchObject({ pid: keeper.child().pid, config_dir: simulator.configDir, file });
    expect(shown.heartbeat.cycles).toBeGreaterThanOrEqual(2);
    expect(shown.heartbeat.rows).toEqual([
      expect.objectContaining({
        market: MARKET,
        side: 'sell',
        target_usd: 1500,
        current_usd: 1500,
        next_action: 'roll',
      }),
    ]);
    expect(shown.heartbeat.actions).toEqual({ reopen: 1 });
    expect(status.stdout).not.toContain(simulator.apiKey);
    // On a screen: a card naming the keeper.
    const card = await simulator.hedge(['keep', 'status'], {
      configDir: other.path,
      env: { HOME: home.path, COLUMNS: '80' },
    });
    expect(card.code).toBe(0);
    expect(card.stdout).toContain(`pid ${keeper.child().pid}`);
    for (const line of card.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);

    keeper.child().kill('SIGKILL');
    await keeper.done;
    const dead = await simulator.hedge(['keep', 'status', '--json'], {
      configDir: other.path,
      env: { HOME: home.path },
    });
    expect(dead.code, dead.stderr).toBe(15);
    expect(JSON.parse(dead.stdout).state).toBe('dead');
    // No keeper ever ran for this account in another home: exit 15, said as such.
    const none = await simulator.hedge(['keep', 'status', '--json'], { configDir: other.path });
    expect(none.code).toBe(15);
    expect(JSON.parse(none.stdout).state).toBe('none');
  });

  it('--metrics serves Prometheus metrics (cycles, actions, book vs target) and /healthz on 127.0.0.1', async () => {
    const simulator = await startSimulator();
    const file = writeTarget(simulator.configDir, [`${MARKET},buy,1200,3`]);
    const keeper = startKeeper(simulator, file, ['--metrics', '127.0.0.1:0']);
    await until(() => keeper.events.some((event) => event.code === 'metrics_listening'), 'the metrics address', {
      process: keeper.done,
    });
    const address = keeper.events.find((event) => event.code === 'metrics_listening')!.address as string;
    expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    await until(
      () =>
        keeper.events.filter((event) => event.event === 'cycle').length >= 2 &&
        activeNotional(simulator, 'buy') === 1200,
      'two cycles and the fill',
      { process: keeper.done },
    );
    await until(
      () =>
        keeper.events.filter((event) => event.event === 'cycle').some((event) => event.rows?.[0]?.current_usd === 1200),
      'a cycle that saw the fill',
      { process: keeper.done },
    );
    // An action may outlast its cycle (a cycle waits for its steps only until the next is due): the
    // re-open is counted once it is done, when its event is out, which can come after a later
    // cycle saw the fill (a CI run on a loaded machine read the metrics in between).
    await until(() => keeper.events.some((event) => event.event === 'reopen'), 'the re-open done', {
      process: keeper.done,
    });
    const metrics = await (await fetch(`http://${address}/metrics`)).text();
    expect(metrics).toMatch(/hedge_keeper_cycles_total\{result="good"\} [1-9]/);
    expect(metrics).toContain('hedge_keeper_actions_total{action="reopen"} 1');
    expect(metrics).toContain(`hedge_keeper_target_usd{market="${MARKET}",side="buy"} 1200`);
    expect(metrics).toContain(`hedge_keeper_book_usd{market="${MARKET}",side="buy"} 1200`);
    expect(metrics).toMatch(/hedge_keeper_seconds_since_last_good_cycle \d/);
    const health = await fetch(`http://${address}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    keeper.child().kill('SIGTERM');
    expect((await keeper.done).code).toBe(0);
    // Stopped with the keeper: nothing listens there any more.
    await expect(fetch(`http://${address}/healthz`)).rejects.toThrow();
  });

  it('--metrics: an error code the server made up is counted as `other`, escape sequences and all; two such codes are one series; a known code keeps its name', async () => {
    const simulator = await startSimulator();
    const file = writeTarget(simulator.configDir, [`${MARKET},buy,1200,3`]);
    const madeUp = ['made_up\u001b]52;c;ZXZpbA==\u0007\u001b[2J', 'another_new_code'];
    const refuseOnce = (code: string) =>
      simulator.sandbox.setFaults({
        nextError: { count: 1, status: 400, code, message: 'refused' },
        match: { method: 'POST', path: '/hedges' },
      });
    refuseOnce(madeUp[0]!);
    const keeper = startKeeper(simulator, file, ['--metrics', '127.0.0.1:0']);
    const errors = () => keeper.events.filter((event) => event.event === 'error' && event.action === 'reopen');
    await until(() => errors().length === 1, 'the first refusal', { process: keeper.done });
    refuseOnce(madeUp[1]!);
    await until(() => errors().length === 2, 'the second refusal', { process: keeper.done });
    refuseOnce('capacity_exceeded');
    await until(() => errors().length === 3, 'the third refusal', { process: keeper.done });
    expect(errors().map((event) => event.code)).toEqual([...madeUp, 'capacity_exceeded']);
    const address = keeper.events.find((event) => event.code === 'metrics_listening')!.address as string;
    const metrics = await (await fetch(`http://${address}/metrics`)).text();
    expect(metrics).toContain('hedge_keeper_errors_total{code="other"} 2');
    expect(metrics).toContain('hedge_keeper_errors_total{code="capacity_exceeded"} 1');
    expect(metrics.match(/^hedge_keeper_errors_total\{/gm)).toHaveLength(2);
    expect(metrics).not.toContain('made_up');
    expect(metrics).not.toContain('another_new_code');

    expect(metrics).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    keeper.child().kill('SIGTERM');
    expect((await keeper.done).code).toBe(0);
  });

  it('bad service options are one line naming the option, exit 2, nothing sent', async () => {
    const simulator = await startSimulator();
    const file = writeTarget(simulator.configDir, [`${MARKET},buy,1000,3`]);
    for (const [args, named] of [
      [['--alert-url', 'http://chat.example/hook'], '--alert-url'],
      [['--alert-url', `https://chat.example/hook?k=${simulator.apiKey}`], '--alert-url'],
      [['--alert-url', 'https://user:pw@chat.example/hook'], '--alert-url'],
      [['--metrics', 'localhost:99999'], '--metrics'],
      [['--alert-headroom', '-5'], '--alert-headroom'],
    ] as const) {
      const result = await simulator.hedge(['keep', file, '--once', ...args]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toContain(named);
      expect(result.stderr).not.toContain(simulator.apiKey);
    }
    expect(simulator.requests()).toHaveLength(0);
    expect(existsSync(join(simulator.configDir, 'journal.jsonl'))).toBe(false);
  });
});

describeWithPostgres('hedge keep status with a team store', (server) => {
  const startTeamSimulator = useSimulators();

  it('from another machine of the store: the keeper holding the account there is shown (exit 0); once it is killed, none is (exit 15)', async () => {
    const simulator = await startTeamSimulator();
    const team = await teamOf(simulator, server());
    cleanups.push(() => team.remove());
    const file = writeTarget(team.a.dir, [`${MARKET},buy,1000,3`]);
    let keeper: ChildProcess | undefined;
    let printed = '';
    const running = team.a.hedge(['keep', file, '--interval', '2'], {
      onSpawn: (spawned) => {
        keeper = spawned;
        spawned.stdout!.on('data', (chunk: string) => (printed += chunk));
      },
    });
    cleanups.push(async () => {
      if (keeper && keeper.exitCode === null && keeper.signalCode === null) keeper.kill('SIGTERM');
      await running.catch(() => undefined);
    });
    await until(() => printed.includes('"event":"cycle"'), "the keeper's first cycle", {
      process: running,
    });
    // Machine B has its own home: no heartbeat file of A's there; the store's lock and heartbeat say it all.
    const status = await team.b.hedge(['keep', 'status', '--json']);
    expect(status.code, status.stderr).toBe(0);
    const shown = JSON.parse(status.stdout);
    expect(shown.state).toBe('running');
    expect(shown.heartbeat).toMatchObject({ pid: keeper!.pid });
    expect(shown.store_holder).toMatchObject({ pid: keeper!.pid });
    // Asking did not take the lock from it: a second keeper on B is still refused.
    expect((await team.b.hedge(['keep', file, '--once'])).code).toBe(11);
    keeper!.kill('SIGKILL');
    await running;
    const gone = await team.b.hedge(['keep', 'status', '--json']);
    expect(gone.code, gone.stderr).toBe(15);
    expect(JSON.parse(gone.stdout).store_holder).toBeNull();
  });
});

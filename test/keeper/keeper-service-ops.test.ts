// hedge keep run as a service: one keeper per account across config folders, alerts
// once per row and cause with a recovery (to --alert-cmd and --alert-url), `hedge keep status`
// from another terminal, and --metrics. The keepers are real processes against the simulator (the
// runs that meet them, in-process, are another pid); every assertion is on the server's own state,
// its request log, or what the keeper and the receivers were sent.
import { createServer } from 'node:http';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { tempDir } from '../support/hedge-cli.js';
import { listening } from '../support/servers/loopback.js';
import { until } from '../support/polling.js';
import { MARKET } from '../support/simulator.js';
import {
  activeNotional,
  describeKeepers,
  eventAfter,
  eventsOf,
  hedgeOf,
  keepOnce,
  lines,
  stopKeeper,
  writeTarget,
  type KeeperRig,
} from '../support/keeper.js';
import { exits, journalEntries } from '../support/cli-runs.js';
import { oneFilled, eventIs, holds, keeperCase } from './filled.js';

/**
 * A local webhook receiver (every POST body, parsed; closed after the test), and the options that alert to it and to
 * `cat >> alerts.ndjson` in the simulator's config folder (`log`).
 */
async function receiver(rig: KeeperRig, simulator: { configDir: string }) {
  const posts: Array<Record<string, any>> = [];
  const server = createServer(async (request, response) => {
    posts.push({ ...JSON.parse(await text(request)), _contentType: request.headers['content-type'] });
    response.writeHead(200).end('ok');
  });
  const { port, close } = await listening(server);
  rig.later(close);
  const url = `http://127.0.0.1:${port}/hooks/desk-alerts`;
  const log = join(simulator.configDir, 'alerts.ndjson');
  return { url, posts, log, args: ['--alert-url', url, '--alert-cmd', `cat >> ${log}`] };
}

/** The alerts an --alert-cmd of `cat >> FILE` was given, one JSON line each. */
const alertsIn = (file: string) => lines(readFileSync(file, 'utf8'));
const summary = (alerts: Array<Record<string, any>>) =>
  alerts.map((alert) => `${alert.alert} ${alert.cause}${alert.side ? ` ${alert.side}` : ''}`);

describeKeepers('hedge keep as a service', 3, () => {
  keeperCase(
    "a side that settled instead of rolling is alerted (missed_roll), and recovered once the keeper has it covered again; seen covered while the keeper's own re-open was still in flight, it is a missed roll too",
    {},
    async (simulator, rig) => {
      // The re-open's looks at its hedge are held unanswered until a cycle has found the side covered with the step
      // still in flight (and did not decide it); each held look ends at its --request-timeout, and is sent again.
      simulator.sandbox.setFaults({ stall: 'headers', match: { method: 'GET', path: /^\/hedges\/[^/]+$/ } });
      // A keeper of a 2,000 sell whose hedges live one day, rolled 6 h before maturity, posting its alerts.
      const hook = await receiver(rig, simulator);
      const keeper = rig.keep(simulator, writeTarget(simulator, ['USDTNGN,sell,2000,1,,6h']), [
        '--alert-url',
        hook.url,
        '--request-timeout',
        '4',
      ]);
      const seenInFlight = await eventAfter(
        keeper,
        0,
        (event) =>
          event.event === 'cycle' && event.rows?.[0]?.current_usd === 2000 && /in flight/.test(event.rows[0].state),
        'a cycle that saw the side covered with the re-open in flight',
      );
      simulator.sandbox.setFaults({ stall: null, match: null });
      // That cycle's status says when the side's roll is due, though the keeper did not decide it.
      expect(seenInFlight.rows[0]).toMatchObject({ next_action: 'roll', next_action_at: expect.any(String) });
      expect(Date.parse(seenInFlight.rows[0].next_action_at)).toBeLessThan(simulator.active('sell')[0].maturityAtMs);
      await eventAfter(keeper, 0, 'reopen', 'the re-open done');
      const first = simulator.active('sell')[0];
      simulator.advance(30 * 3_600_000);
      await until(() => hook.posts.some((post) => post.alert === 'recovered'), 'an alert and its recovery', {
        process: keeper.done,
      });
      expect(summary(hook.posts)).toEqual(['started missed_roll sell', 'recovered missed_roll sell']);
      expect(hook.posts[0]).toMatchObject({ event: 'alert', market: MARKET, side: 'sell' });
      expect(hook.posts[0].text).toContain('settled instead of being rolled');
      expect(hedgeOf(simulator, first.id).status).not.toBe('filled');
      holds(simulator);
    },
  );

  keeperCase(
    'two failing rows: each refused again and again over many cycles and alerted once, to --alert-cmd and --alert-url; once the target read again (SIGHUP) is within the cap and both are at target, one "recovered" each',
    { exposureCapUsd: 50_000 },
    async (simulator, rig) => {
      // Two rows the server refuses (each above its exposure cap), alerted to a receiver and to `cat >> alerts.ndjson`.
      const hook = await receiver(rig, simulator);
      const file = writeTarget(simulator, ['USDTNGN,sell,900000,1,,', 'USDTNGN,buy,900000,3,,']);
      const keeper = rig.keep(simulator, file, hook.args);
      const refusals = (side: string) =>
        eventsOf(keeper, 'error').filter((event) => event.side === side && event.code === 'exposure_exceeded').length;
      // Each row refused twice (a back-off of one interval between): the errors repeat, the alerts must not.
      await until(() => refusals('sell') >= 2 && refusals('buy') >= 2, 'two refusals of each row', {
        process: keeper.done,
      });
      await until(() => hook.posts.length >= 2, 'the two alerts posted');
      expect(summary(hook.posts).sort()).toEqual(['started refused buy', 'started refused sell']);
      for (const post of hook.posts) {
        expect(post._contentType).toBe('application/json');
        expect(post.text).toContain(`USDTNGN ${post.side}: refused`);
        expect(post).toMatchObject({ event: 'error', code: 'exposure_exceeded', market: MARKET });
        expect(JSON.stringify(post)).not.toContain(simulator.apiKey);
      }
      // Nothing was opened on either side while refused.
      expect([...simulator.active('sell'), ...simulator.active('buy')]).toEqual([]);

      // The target comes within the cap: both rows open, and each alert clears once.
      writeTarget(simulator, ['USDTNGN,sell,1000,1,,', 'USDTNGN,buy,2000,3,,']);
      keeper.child().kill('SIGHUP');
      await until(() => hook.posts.filter((post) => post.alert === 'recovered').length >= 2, 'two recoveries posted', {
        process: keeper.done,
      });
      expect([activeNotional(simulator, 'sell'), activeNotional(simulator, 'buy')]).toEqual([1000, 2000]);
      await eventAfter(keeper, keeper.events.length, 'cycle', 'one more cycle');
      await stopKeeper(keeper);

      // Said once each, everywhere: the receiver, --alert-cmd (one JSON line each) and the keeper's own log.
      const all = summary(hook.posts).sort();
      expect(all).toEqual([
        'recovered refused buy',
        'recovered refused sell',
        'started refused buy',
        'started refused sell',
      ]);
      const recovered = hook.posts.find((post) => post.alert === 'recovered')!;
      expect(recovered).toMatchObject({ event: 'recovered', market: MARKET });
      expect(recovered.text).toMatch(/recovered/);
      expect(typeof recovered.duration_s).toBe('number');
      expect(summary(alertsIn(hook.log)).sort()).toEqual(all);
      expect(eventsOf(keeper, 'alert')).toHaveLength(4);
    },
  );

  keeperCase(
    '`hedge keep status` from another config folder shows the running keeper (exit 0); a second keeper with the same key and host, from its own config folder or another, exits 11 naming the first and the dry run to see what it would do (which runs and sends nothing); killed with -9 the first is shown dead (exit 15) and its place is free; a heartbeat that is not one (a body that is not a heartbeat, not JSON at all or with a row that is not an object) is skipped with one warning line naming its file (and the field), never a stack trace, and keep status says none; a keeper starting over one whose active alerts hold a row that is not an object skips it the same way, and keeps its target',
    {},
    async (simulator, rig) => {
      const home = tempDir('hedge-home-');
      const other = tempDir('hedge-other-');
      for (const dir of [home, other]) rig.later(() => dir.remove());
      const inHome = { env: { HOME: home.path } };
      const file = writeTarget(simulator, ['USDTNGN,sell,1500,3,,'], 'desk target.csv');
      const keeper = rig.keep(simulator, file, [], inHome);
      // Three cycles (a cycle's heartbeat is written after its event, so the second's is written once
      // the third is printed), the last with the re-open landed in every view and its step ended (the
      // step waits for the positions list too, so on a loaded machine a cycle may still find it in
      // flight — showing the roll time all the same).
      await until(
        () =>
          eventsOf(keeper, 'cycle').length >= 3 &&
          eventsOf(keeper, 'cycle').at(-1)?.rows?.[0]?.next_action === 'roll' &&
          !/in flight/.test(eventsOf(keeper, 'cycle').at(-1)!.rows[0].state),
        'two cycles, the side covered',
        { process: keeper.done },
      );

      const status = (env: Record<string, string> = {}, args = ['--json']) =>
        simulator.hedge(['keep', 'status', ...args], { configDir: other.path, env: { HOME: home.path, ...env } });
      const running = exits(await status(), 0);
      const shown = JSON.parse(running.stdout);
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
      expect(running.stdout).not.toContain(simulator.apiKey);
      // On a screen: a card naming the keeper.
      const card = exits(await status({ COLUMNS: '80', HEDGE_FORCE_TTY: '1' }, []), 0);
      expect(card.stdout).toContain(`pid ${keeper.child().pid}`);
      expect(card.stdout).toContain('┌');
      for (const line of card.stdout.split('\n')) expect([...line].length).toBeLessThanOrEqual(80);
      // In a pipe: a plain line per row, its label and value whole, no box.
      const piped = exits(await status({ COLUMNS: '80' }, []), 0).stdout;
      expect(piped).not.toMatch(/[┌│└─]/);
      expect(piped.split('\n')).toEqual(
        expect.arrayContaining(['State: running', expect.stringMatching(`^Keeper: pid ${keeper.child().pid} on `)]),
      );

      // One keeper per account, across config folders: the second ones exit 11 naming the first and the dry run to
      // see what it would do, its file quoted as the shell reads it back, and send nothing.
      for (const configDir of [simulator.configDir, other.path]) {
        const refused = exits(
          await simulator.hedge(['keep', file, '--once'], { configDir, ...inHome }),
          11,
          `pid ${keeper.child().pid}`,
          `config folder ${simulator.configDir}`,
        ).stderr;
        expect(refused).toMatch(/since \d{4}-\d\d-\d\dT/);
        expect(/or run `hedge (.*?)` to see what it would do/.exec(refused)?.[1]).toBe(`keep '${file}' --dry-run`);
      }
      expect(simulator.sends('/hedges')).toHaveLength(1);
      // That dry run, the printed words as a shell splits them, runs and sends nothing.
      const writes = simulator.writes().length;
      exits(await simulator.hedge(['keep', file, '--dry-run']), 0);
      expect(simulator.writes()).toHaveLength(writes);

      keeper.child().kill('SIGKILL');
      await keeper.done;
      expect(JSON.parse(exits(await status(), 15).stdout).state).toBe('dead');
      exits(await simulator.hedge(['keep', file, '--once'], { configDir: other.path, ...inHome }), 0);
      expect(simulator.sends('/hedges')).toHaveLength(1);
      holds(simulator, 1500);
      // No keeper ever ran for this account in another home: exit 15, said as such.
      expect(
        JSON.parse(exits(await simulator.hedge(['keep', 'status', '--json'], { configDir: other.path }), 15).stdout)
          .state,
      ).toBe('none');

      // The heartbeat file `keep status` reads in that home, written as a keeper writes it but for what is wrong.
      const heartbeat = JSON.parse((await status()).stdout).heartbeat_file;
      const wrong = (fields: object) =>
        JSON.stringify({ pid: 4242, host: 'desk-1', updated_at: '2026-03-02T09:00:00.000Z', ...fields });
      for (const [body, problem] of [
        [wrong({ pid: 'x' }), 'pid: Invalid input: expected number, received string'],
        // Cut short, or written by hand.
        ['{"pid": 4242, "host": "desk-1", "upda', 'not valid JSON'],
        [wrong({ rows: [null] }), 'rows.0: Invalid input: expected object, received null'],
      ]) {
        writeFileSync(heartbeat, body);
        const run = exits(await status(), 15);
        expect(JSON.parse(run.stdout).state).toBe('none');
        expect(run.stderr).toContain(`Keeper heartbeat skipped: ${heartbeat} (${problem}).`);
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
      }
      writeFileSync(heartbeat, wrong({ alerts: [null, 'x'] }));
      const target = writeTarget(simulator, ['USDTNGN,sell,1500,3,,', 'USDTNGN,buy,1000,3,,']);
      expect(exits(await simulator.hedge(['keep', target, '--once'], inHome), 0).stderr).toContain(
        `Keeper heartbeat skipped: ${heartbeat} (alerts.0: Invalid input: expected object, received null).`,
      );
      expect(simulator.sends('/hedges')).toHaveLength(2);
    },
  );

  keeperCase(
    '--metrics serves Prometheus metrics (cycles, actions, book vs target, errors: a code the server made up, escape sequences and all, is `other`) and /healthz on 127.0.0.1',
    {},
    async (simulator, rig) => {
      const file = writeTarget(simulator, ['USDTNGN,buy,1200,3,,']);
      // The first re-open is refused with a code of the server's own making.
      simulator.sandbox.setFaults({
        nextError: { count: 1, status: 400, code: 'made_up\u001b]52;c;ZXZpbA==\u0007\u001b[2J', message: 'refused' },
        match: { method: 'POST', path: '/hedges' },
      });
      const keeper = rig.keep(simulator, file, ['--metrics', '127.0.0.1:0']);
      const address = (
        await eventAfter(keeper, 0, (event) => event.code === 'metrics_listening', 'the metrics address')
      ).address;
      expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
      await until(
        () => eventsOf(keeper, 'cycle').length >= 2 && activeNotional(simulator, 'buy') === 1200,
        'two cycles and the fill',
        { process: keeper.done },
      );
      await eventAfter(
        keeper,
        0,
        (event) => event.event === 'cycle' && event.rows?.[0]?.current_usd === 1200,
        'a cycle that saw the fill',
      );
      // An action may outlast its cycle (a cycle waits for its steps only until the next is due): the
      // re-open is counted once it is done, when its event is out, which can come after a later
      // cycle saw the fill.
      await eventAfter(keeper, 0, 'reopen', 'the re-open done');
      const metrics = await (await fetch(`http://${address}/metrics`)).text();
      expect(metrics).toMatch(/hedge_keeper_cycles_total\{result="good"\} [1-9]/);
      for (const text of [
        'hedge_keeper_actions_total{action="reopen"} 1',
        'hedge_keeper_target_usd{market="USDTNGN",side="buy"} 1200',
        'hedge_keeper_book_usd{market="USDTNGN",side="buy"} 1200',
      ])
        expect(metrics).toContain(text);
      expect(metrics).toMatch(/hedge_keeper_seconds_since_last_good_cycle \d/);
      expect(metrics.match(/^hedge_keeper_errors_total\{.*/gm)).toEqual(['hedge_keeper_errors_total{code="other"} 1']);
      expect(metrics).not.toMatch(/made_up|[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      const health = await fetch(`http://${address}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      await stopKeeper(keeper);
      // Stopped with the keeper: nothing listens there any more.
      await expect(fetch(`http://${address}/healthz`)).rejects.toThrow();
    },
  );

  keeperCase(
    'cron-style --once runs carry their alerts on: a row refused (the exposure cap) at every run is an error event naming its journal entry and key and exit 3, alerted once to a hook that never sees the key, while the other row goes on; its recovery is sent by a later run',
    { stepped: true, exposureCapUsd: 50_000 },
    async (simulator) => {
      const file = writeTarget(simulator, ['USDTNGN,sell,900000,1,,', 'USDTNGN,buy,1000,3,,']);
      const commandLog = join(simulator.configDir, 'alerts.ndjson');
      const envSeen = join(simulator.configDir, 'hook-env.txt');
      const alerting = ['--alert-cmd', `env > ${envSeen}; cat >> ${commandLog}`];
      const first = await keepOnce(simulator, file, 3, ...alerting);
      // The refusal names its journal entry (rejected) and the key it was sent under, the entry's own.
      const sent = simulator.requests('POST', '/hedges').find((entry) => (entry.body as any).side === 'sell')!;
      const entry = (await journalEntries(simulator)).find((row) => row.idempotency_key === sent.idempotencyKey);
      expect(entry?.outcome).toBe('rejected');
      expect(first.find(eventIs('error'))).toMatchObject({
        market: MARKET,
        side: 'sell',
        action: 'reopen',
        exit_code: 3,
        failures: 1,
        journal_id: entry!.id,
        idempotency_key: sent.idempotencyKey,
      });
      expect(first.some(eventIs('reopen', 'buy'))).toBe(true);
      await oneFilled(simulator, 'buy', 'the buy fill');
      for (let run = 1; run < 3; run += 1) await keepOnce(simulator, file, 3, ...alerting);
      expect(simulator.sends('/hedges')).toHaveLength(4);
      holds(simulator, 1000, 'buy');
      expect(simulator.active('sell')).toHaveLength(0);
      // The hook got the error event once, as one JSON line on its stdin, and no key in its environment.
      expect(alertsIn(commandLog)).toEqual([
        expect.objectContaining({
          alert: 'started',
          cause: 'refused',
          event: 'error',
          side: 'sell',
          code: 'exposure_exceeded',
        }),
      ]);
      expect(readFileSync(envSeen, 'utf8')).not.toContain(simulator.apiKey);
      writeTarget(simulator, ['USDTNGN,sell,1000,1,,', 'USDTNGN,buy,1000,3,,']);
      await keepOnce(simulator, file);
      await oneFilled(simulator, 'sell', 'the sell fill');
      await keepOnce(simulator, file, 0, ...alerting);
      expect(summary(alertsIn(commandLog))).toEqual(['started refused sell', 'recovered refused sell']);
    },
  );

  keeperCase(
    'bad options are one line naming the option, exit 2, nothing sent; a dry run pages no hook (--alert-cmd and --alert-url get nothing, its alert event says it would have alerted); server text in an alert is Slack text at --alert-url and --alert-cmd: no channel ping, no link behind a label, no escape byte',
    { exposureCapUsd: 50_000 },
    async (simulator, rig) => {
      const file = writeTarget(simulator, ['USDTNGN,buy,1000,3,,']);
      // Each named in its one line (the option, or what it says of it).
      for (const [option, value, named = option] of [
        ['--alert-url', 'http://chat.example/hook'],
        ['--alert-url', `https://chat.example/hook?k=${simulator.apiKey}`],
        ['--alert-url', 'https://user:pw@chat.example/hook'],
        ['--metrics', 'localhost:99999'],
        ['--alert-headroom', '-5'],
        ['--interval', '0.5', '--interval: "0.5" is not allowed'],
      ]) {
        const result = exits(await simulator.hedge(['keep', file, '--once', option, value]), 2);
        expect(result.stderr.trim().split('\n')).toHaveLength(1);
        expect(result.stderr).toContain(named);
        expect(result.stderr).not.toContain(simulator.apiKey);
      }
      expect(simulator.requests()).toHaveLength(0);
      expect(existsSync(join(simulator.configDir, 'journal.jsonl'))).toBe(false);

      const hook = await receiver(rig, simulator);
      const result = exits(
        await simulator.hedge(['keep', writeTarget(simulator, ['USDTNGN,sell,900000,1,,']), '--dry-run', ...hook.args]),
        3,
      );
      expect(hook.posts).toEqual([]);
      expect(existsSync(hook.log)).toBe(false);
      expect(lines(result.stdout).filter(eventIs('alert'))).toEqual([
        expect.objectContaining({
          alert: 'started',
          cause: 'refused',
          side: 'sell',
          dry_run: true,
          would_send: ['--alert-cmd', '--alert-url'],
        }),
      ]);
      expect(simulator.requests('POST', '/hedges')).toEqual([]);

      simulator.sandbox.setFaults({
        nextError: {
          count: 1,
          status: 400,
          code: 'capacity_exceeded',
          message:
            '<!channel> <https://evil.example/login|Your key expired: re-authenticate here> \u001b]52;c;ZXZpbA==\u0007',
        },
        match: { method: 'POST', path: '/hedges' },
      });
      await keepOnce(simulator, writeTarget(simulator, ['USDTNGN,sell,1000,1,,']), 3, ...hook.args);
      expect(simulator.active('sell')).toHaveLength(0);

      const viaCommand = alertsIn(hook.log);
      expect([hook.posts.length, viaCommand.length]).toEqual([1, 1]);
      const escaped =
        '&lt;!channel&gt; &lt;https://evil.example/login|Your key expired: re-authenticate here&gt; \\x1b]52;c;ZXZpbA==\\x07';
      for (const alert of [...hook.posts, ...viaCommand]) {
        expect(alert).toMatchObject({
          alert: 'started',
          cause: 'refused',
          code: 'capacity_exceeded',
          market: MARKET,
          side: 'sell',
        });
        expect(alert.text).toContain('USDTNGN sell: refused');
        expect(alert.text).toContain(escaped);
        expect(alert.message).toContain(escaped);
        // The values as parsed (a JSON escape such as \u003c shows here as the character): none came through raw.
        for (const value of Object.values(alert))
          if (typeof value === 'string') expect(value).not.toMatch(/[<>\u001b\u0007]/);
      }
    },
  );
});

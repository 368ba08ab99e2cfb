// A keeper heartbeat is read by a schema: one that is not a heartbeat is skipped with a warning
// naming its file and field, never a stack trace, and `hedge keep status` goes on without it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSimulators } from '../support/simulator.js';
import { writeTarget } from '../support/keeper.js';
import { exits } from '../support/cli-runs.js';
import { tempFolders } from '../support/hedge-cli.js';

const start = useSimulators();
const tempHome = tempFolders('hedge-home-');

/** A heartbeat as a keeper writes it, but for `wrong`. */
const heartbeatWith = (wrong: object) =>
  JSON.stringify({ pid: 4242, host: 'desk-1', updated_at: '2026-03-02T09:00:00.000Z', ...wrong });

describe('a keeper heartbeat that is not one', () => {
  it('a body that is not a heartbeat, not JSON at all or with a row that is not an object is skipped with one warning line naming its file (and the field), never a stack trace, and keep status says none; a keeper starting over one whose active alerts hold a row that is not an object skips it the same way, and keeps its target', async () => {
    // `keep status` in a home of its own, and the heartbeat file it reads (its folder made, the file not).
    const simulator = await start();
    const home = tempHome();
    const env = { HOME: home };
    const file = JSON.parse(
      exits(await simulator.hedge(['keep', 'status', '--json'], { env }), 15).stdout,
    ).heartbeat_file;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    for (const [body, problem] of [
      [heartbeatWith({ pid: 'x' }), 'pid: Invalid input: expected number, received string'],
      // Cut short, or written by hand.
      ['{"pid": 4242, "host": "desk-1", "upda', 'not valid JSON'],
      [heartbeatWith({ rows: [null] }), 'rows.0: Invalid input: expected object, received null'],
    ]) {
      writeFileSync(file, body);
      const run = exits(await simulator.hedge(['keep', 'status', '--json'], { env }), 15);
      expect(JSON.parse(run.stdout).state).toBe('none');
      expect(run.stderr).toContain(`Keeper heartbeat skipped: ${file} (${problem}).`);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }

    writeFileSync(file, heartbeatWith({ alerts: [null, 'x'] }));
    expect(
      exits(await simulator.hedge(['keep', writeTarget(simulator, ['USDTNGN,sell,2000,7,,']), '--once'], { env }), 0)
        .stderr,
    ).toContain(`Keeper heartbeat skipped: ${file} (alerts.0: Invalid input: expected object, received null).`);
    expect(simulator.requests('POST', '/hedges')).toHaveLength(1);
  });
});

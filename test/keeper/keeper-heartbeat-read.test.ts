// A keeper heartbeat is read by a schema: one that is not a heartbeat is skipped with a warning
// naming its file and field, never a stack trace, and `hedge keep status` goes on without it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { useSimulators } from '../support/simulator.js';
import { exits } from '../support/cli-runs.js';
import { tempDir } from '../support/hedge-cli.js';

const start = useSimulators();
const homes: Array<{ remove(): void }> = [];
afterEach(() => homes.splice(0).forEach((home) => home.remove()));

/** `keep status` in a home of its own, and the heartbeat file it reads (its folder made, the file not). */
async function heartbeatFolder() {
  const simulator = await start();
  const home = tempDir('hedge-home-');
  homes.push(home);
  const status = (args: string[]) => simulator.hedge(['keep', 'status', ...args], { env: { HOME: home.path } });
  const file = JSON.parse(exits(await status(['--json']), 15).stdout).heartbeat_file;
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  return { status, file };
}

describe('a keeper heartbeat that is not one', () => {
  it('is skipped with a warning naming its file and the field; keep status says none', async () => {
    const { status, file } = await heartbeatFolder();
    writeFileSync(file, JSON.stringify({ pid: 'x', host: 'desk-1', updated_at: '2026-03-02T09:00:00.000Z' }));

    const run = exits(await status(['--json']), 15);
    expect(JSON.parse(run.stdout).state).toBe('none');
    expect(run.stderr).toContain(
      `Keeper heartbeat skipped: ${file} (pid: Invalid input: expected number, received string).`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('that is not JSON at all (cut short, or written by hand) is skipped with a warning naming its file; keep status says none', async () => {
    const { status, file } = await heartbeatFolder();
    writeFileSync(file, '{"pid": 4242, "host": "desk-1", "upda');

    const run = exits(await status(['--json']), 15);
    expect(JSON.parse(run.stdout).state).toBe('none');
    expect(run.stderr).toContain(`Keeper heartbeat skipped: ${file} (not valid JSON).`);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

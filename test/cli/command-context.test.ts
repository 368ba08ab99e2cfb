// The command context builds each service once, on first use (or serves the one given), and closes
// what was opened last-first when the command ends; a keeper's step is quiet and confirmed.
import type { HedgeClient } from '../../src/platform/api/client.js';
import type { Notice } from '../../src/platform/results/notices.js';
import { testContext, type TestContextOptions } from '../support/client.js';
import { tempFolders } from '../support/hedge-cli.js';

const tempFolder = tempFolders('hedge-context-');

/** A context for people (a table), its services built as the CLI builds them unless `given`. */
const context = (given: TestContextOptions = {}) => testContext({ output: { format: 'table' }, ...given }).ctx;

it('CommandContext builds a service once however often and however concurrently it is asked for, and closes it at the end', async () => {
  const ctx = context();
  const all = await Promise.all([ctx.connections(), ctx.connections(), ctx.connections()]);
  expect(new Set(all).size).toBe(1);
  expect(await ctx.connections()).toBe(all[0]);
  await ctx.dispose();
});

it('CommandContext serves a given service instead of building one, to derived contexts too', async () => {
  const client = { fake: true } as unknown as HedgeClient;
  const ctx = context({ client });
  expect(await ctx.client()).toBe(client);
  expect(await ctx.derive({ globals: { verbose: true } }).client()).toBe(client);
});

it('CommandContext closes last opened first, and a failing close does not stop the others', async () => {
  const ctx = context();
  const closed: string[] = [];
  ctx.onDispose(() => void closed.push('first'));
  ctx.onDispose(() => {
    throw new Error('cannot close');
  });
  ctx.onDispose(async () => void closed.push('third'));
  await expect(ctx.dispose()).resolves.toBeUndefined();
  expect(closed).toEqual(['third', 'first']);
  await ctx.dispose();
  expect(closed).toEqual(['third', 'first']);
});

it("CommandContext a keeper's step is the keeper's, draws no progress for people, and its notices go to the keeper", async () => {
  const { ctx, stderr } = testContext({ output: { format: 'table' } });
  expect(ctx.origin).toBe('cli');
  const heard: Notice[] = [];
  const step = ctx.keeperStep({
    signal: new AbortController().signal,
    notify: (notice) => heard.push(notice),
  });
  expect(step.origin).toBe('keeper');
  await ctx.startProgress('the command waits', 0);
  await step.startProgress('the step waits', 0);
  await new Promise((resolve) => setImmediate(resolve));
  expect(stderr()).toContain('the command waits');
  expect(stderr()).not.toContain('the step waits');
  const notice: Notice = { kind: 'wire-warning', level: 'warn', text: 'x' };
  step.notify(notice);
  expect(heard).toEqual([notice]);
});

it("CommandContext the journal's wait for a held account lock sleeps on the context's clock", async () => {
  const sleeps = [];
  const clock = { now: () => 1_000_000, sleep: async (ms: number) => void sleeps.push(ms) };
  const ctx = context({ env: { HEDGE_CONFIG_DIR: tempFolder() }, clock });
  const journal = await ctx.journal();
  const first = await journal.lock('test|desk', { waitMs: 0 });
  expect(first.held).toBe(true);
  // Held by this process (a live holder): the second waits, looking again after each sleep, then gives up.
  const second = await journal.lock('test|desk', { waitMs: 50 });
  expect(second.held).toBe(false);
  expect(sleeps.length).toBeGreaterThan(0);
  if (first.held) await first.hold.release();
  await ctx.dispose();
});

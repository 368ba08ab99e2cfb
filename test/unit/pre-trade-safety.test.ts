// The guards that run before a write is sent, with fake streams and a scripted prompter: the live
// key guard (banner, confirmation defaulting to No, --yes, no terminal), the idempotency key
// (made once, or taken from --idempotency-key and checked), and the dry-run rendering.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandContext } from '../../src/runtime/context.js';
import { describePlannedRequest } from '../../src/flows/dry-run.js';
import { idempotencyKeyFor, parseIdempotencyKey } from '../../src/domain/idempotency.js';
import { guardLiveAction, NotConfirmedError } from '../../src/flows/live-guard.js';
import { UsageError } from '../../src/errors.js';
import { describeError } from '../../src/exit-codes.js';
const exitCodeFor = (error: unknown): number => describeError(error).exitCode;
import { makeChalk } from '../../src/ui/color.js';
import { Output } from '../../src/ui/output.js';
import type { Prompter } from '../../src/ui/prompter.js';
import { flowPorts } from '../../src/runtime/flow-ports.js';

const LIVE = 'hpk_live_AbCdEfGhIjKlMnOpQrStUvWx';
const TEST = 'hpk_test_AbCdEfGhIjKlMnOpQrStUvWx';

function context(options: { key: string; tty: boolean; yes?: boolean; input?: boolean; answer?: boolean }) {
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stdoutIsTTY: options.tty,
    stderrIsTTY: options.tty,
    stdinIsTTY: options.tty,
  };
  let stderr = '';
  io.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const questions: Array<{ message: string; default?: boolean }> = [];
  const prompter: Prompter = {
    select: () => Promise.reject(new Error('unexpected select')),
    input: () => Promise.reject(new Error('unexpected input')),
    password: () => Promise.reject(new Error('unexpected password')),
    confirm: async (question) => {
      questions.push(question);
      return options.answer ?? false;
    },
  };
  const ctx = new CommandContext({
    io,
    env: { HEDGE_API_KEY: options.key, HEDGE_BASE_URL: 'http://127.0.0.1:9/partners/sandbox/v2' },
    globals: {
      json: false,
      header: true,
      demo: false,
      yes: options.yes ?? false,
      input: options.input ?? true,
      color: false,
      verbose: false,
    },
    clock: { now: () => 0, sleep: async () => {} },
    signal: new AbortController().signal,
    output: new Output({ mode: options.tty ? 'table' : 'plain', chalk: makeChalk(false), streams: io, now: () => 0 }),
    prompter,
  });
  return { ctx, questions, stderr: () => stderr };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('live key guard', () => {
  it('a live key without a terminal and without --yes is a usage error (exit 2), after the LIVE banner', async () => {
    const { ctx, stderr } = context({ key: LIVE, tty: false });
    const error = await guardLiveAction(flowPorts(ctx), { action: 'open a hedge', dryRun: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(exitCodeFor(error)).toBe(2);
    expect((error as Error).message).toBe(
      '--yes is required to open a hedge with a LIVE key (there is no terminal to confirm on); nothing was sent.',
    );
    await tick();
    expect(stderr()).toContain(' LIVE  production key hpk_live…UvWx: this will open a hedge with real funds.');
    expect(stderr()).not.toContain(LIVE);
  });

  it('--no-input on a terminal also needs --yes', async () => {
    const { ctx } = context({ key: LIVE, tty: true, input: false });
    await expect(guardLiveAction(flowPorts(ctx), { action: 'close a position', dryRun: false })).rejects.toThrow(
      /--no-input forbids asking/,
    );
  });

  it('on a terminal it asks, defaulting to No; No ends the run with exit 8 (declined) and nothing sent', async () => {
    const { ctx, questions } = context({ key: LIVE, tty: true, answer: false });
    const guard = await guardLiveAction(flowPorts(ctx), { action: 'close a position', dryRun: false });
    expect(guard).toMatchObject({ live: true, needsConfirmation: true });
    const error = await guard.confirm('Close the buy position on USDTNGN?').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotConfirmedError);
    expect(exitCodeFor(error)).toBe(8);
    expect(questions).toEqual([{ message: 'LIVE Close the buy position on USDTNGN?', default: false }]);
  });

  it('on a terminal, Yes lets the write go ahead', async () => {
    const { ctx, questions } = context({ key: LIVE, tty: true, answer: true });
    const guard = await guardLiveAction(flowPorts(ctx), { action: 'add to a hedge', dryRun: false });
    await expect(guard.confirm('Add?')).resolves.toBeUndefined();
    expect(questions).toHaveLength(1);
  });

  it('--yes skips the question (the banner still shows); so does --dry-run, which sends nothing', async () => {
    for (const flags of [
      { yes: true, dryRun: false },
      { yes: false, dryRun: true },
    ]) {
      const { ctx, questions, stderr } = context({ key: LIVE, tty: false, yes: flags.yes });
      const guard = await guardLiveAction(flowPorts(ctx), { action: 'reduce a hedge', dryRun: flags.dryRun });
      await guard.confirm('Reduce?');
      expect(guard.needsConfirmation).toBe(false);
      expect(questions).toEqual([]);
      await tick();
      expect(stderr()).toContain('LIVE');
    }
  });

  it('a test key needs no confirmation and shows no banner', async () => {
    const { ctx, questions, stderr } = context({ key: TEST, tty: true });
    const guard = await guardLiveAction(flowPorts(ctx), { action: 'open a hedge', dryRun: false });
    await guard.confirm('Open?');
    expect(guard.live).toBe(false);
    expect(questions).toEqual([]);
    await tick();
    expect(stderr()).toBe('');
  });
});

describe('idempotency key', () => {
  it('is a fresh UUID v4 per command unless --idempotency-key resumes one', () => {
    const first = idempotencyKeyFor(undefined);
    const second = idempotencyKeyFor(undefined);
    expect(first.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(first.key).not.toBe(second.key);
    expect(first.resumed).toBe(false);
    expect(idempotencyKeyFor('  run-42 ')).toEqual({ key: 'run-42', resumed: true });
  });

  it('refuses what cannot be a header value, naming the option', () => {
    for (const bad of ['', 'with space', 'tab\there', 'é', 'x'.repeat(256)]) {
      expect(() => parseIdempotencyKey(bad), JSON.stringify(bad)).toThrow(/^--idempotency-key: /);
    }
  });
});

describe('dry-run rendering', () => {
  it('names the method, full URL, headers with the key redacted, and the JSON body', () => {
    const rendered = describePlannedRequest(
      { method: 'POST', path: '/hedges/close', body: { market: 'USDTNGN', side: 'buy' }, idempotencyKey: 'k-1' },
      'https://api.example.com/partners/acme/v2',
      LIVE,
    );
    expect(rendered).toEqual({
      dry_run: true,
      method: 'POST',
      url: 'https://api.example.com/partners/acme/v2/hedges/close',
      path: '/hedges/close',
      headers: { Authorization: 'Bearer hpk_live…UvWx', 'Content-Type': 'application/json', 'Idempotency-Key': 'k-1' },
      body: { market: 'USDTNGN', side: 'buy' },
      idempotency_key: 'k-1',
    });
  });
});

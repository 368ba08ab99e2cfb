// The write flow when the journal cannot be written after the request left the machine (a full
// disk, a lock held too long): the command must still say that the action was sent, with its key
// and the way to finish it — exit 5, outcome unknown — never a bare journal error (exit 1) that
// hides that the server may have acted. In-process, with a journal that fails on update and an
// action whose send is counted: the point is the flow, not the network.
import { OutcomeUnknownError } from '../../src/core/errors.js';
import { describeError } from '../../src/platform/terminal/exit-codes.js';
import { runWrite } from '../../src/features/write/write-flow.js';
import { JournalError, openJournal, type Journal } from '../../src/platform/journal/index.js';
import { testContext } from '../support/client.js';
import { tempDir } from '../support/hedge-cli.js';

const dir = tempDir('hedge-full-disk-');
afterAll(() => dir.remove());

it('a journal that cannot be written after the send: reports the action as sent with its key and the way to finish it (exit 5), never as a journal error', async () => {
  // A real journal in a fresh folder whose every update fails as a full disk does.
  const journal: Journal = Object.assign(Object.create(openJournal({ dir: dir.path })), {
    update: () =>
      Promise.reject(
        new JournalError('Cannot write the action journal /nowhere/journal.jsonl: no space left on device (ENOSPC).'),
      ),
  });
  const { ctx } = testContext({
    env: {
      HEDGE_API_KEY: 'hpk_test_AbCdEfGhIjKlMnOpQrStUvWx',
      HEDGE_BASE_URL: 'http://127.0.0.1:9/partners/sandbox/v2',
    },
    globals: { profile: undefined, input: false },
    clock: { now: () => Date.parse('2026-11-22T10:00:00.000Z'), sleep: async () => {} },
    output: { now: () => 0 },
    journal,
  });
  // A close whose send is counted.
  const sent: string[] = [];
  const error = await runWrite(
    ctx,
    {
      command: 'close',
      verb: 'close a position',
      argv: ['close', 'USDTNGN', 'buy'],
      stages: {
        plan: (_write, key) => ({
          method: 'POST',
          path: '/hedges/close',
          body: { market: 'USDTNGN', side: 'buy' },
          idempotencyKey: key,
        }),
        question: () => 'Close?',
        send: async (_write, key) => {
          sent.push(key);
          return { status: 'submitted' };
        },
        submitted: () => ({ order_tx_hash: '0xabc' }),
        wait: async () => ({ result: { status: 'closed' }, outcome: 'done' }),
      },
    },
    { wait: true },
  ).catch((failure: unknown) => failure);

  // Begun (journaled before the send) with the key it was sent with, and left there.
  const begun = await journal.list();
  expect([sent.length, begun.map((entry) => entry.idempotency_key)]).toEqual([1, sent]);
  expect(error).toBeInstanceOf(OutcomeUnknownError);
  expect(error).toMatchObject({
    idempotencyKey: sent[0],
    message:
      'The close was sent, but the journal could not record what happened next: Cannot write the action journal /nowhere/journal.jsonl: no space left on device (ENOSPC).',
  });
  const described = describeError(error);
  expect(described.exitCode).toBe(5);
  expect(described.hint).toContain(`hedge resume ${begun[0].id}`);
});

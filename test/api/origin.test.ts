// The key goes to the base URL's origin and nowhere else, and plain http:// only to this machine,
// end to end: the real binary against the simulator on 127.0.0.1, with a second HTTP server on
// 127.0.0.2 (another origin) that records anything it receives. What is asserted is what the two
// servers saw.
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keyFingerprint } from '../../src/platform/journal/index.js';
import { rowSealer, type SealedFields } from '../../src/platform/journal/row-seal.js';
import { startOtherOrigin, type OtherOrigin } from '../support/servers/other-origin.js';
import { useSimulators } from '../support/simulator.js';
import { okJson } from '../support/cli-runs.js';

const start = useSimulators();
const others: OtherOrigin[] = [];
afterEach(async () => {
  await Promise.all(others.splice(0).map((other) => other.close()));
});

describe('one origin', () => {
  it('an injected journal row `api POST @127.0.0.2:port/steal` is not sent by hedge resume (base URL without a path): exit 2 naming the row, neither server sees a request', async () => {
    const t = await start();
    const other = await startOtherOrigin();
    others.push(other);
    // The base URL of the review: no path, so a path glued to it can name another host.
    const bare = `http://127.0.0.1:${t.sandbox.port}`;
    const path = `@127.0.0.2:${other.port}/steal`;
    const id = 'j_injected01';
    // Written straight into the journal file, as anyone able to write there (or a team store row) could.
    const at = new Date().toISOString();
    const sealed: SealedFields = {
      id,
      created_at: at,
      environment: 'test',
      base_url_host: `127.0.0.1:${t.sandbox.port}`,
      key_id: keyFingerprint(t.apiKey),
      host: hostname(),
      command: `api POST ${path}`,
      request: { method: 'POST', path, body: { side: 'buy', notional_usd: 66666 } },
      idempotency_key: 'injected-idempotency-key-0001',
    };
    // Unsealed, such a row is refused by its seal first (forged-rows.test.ts). Sealed under the key
    // here, so that what refuses it is the origin check: a row of this key cannot leave the origin either.
    const row = {
      at,
      ...sealed,
      seal: rowSealer(t.apiKey).seal(sealed),
      argv: ['api', '-X', 'POST', path],
      outcome: 'pending',
    };
    writeFileSync(join(t.configDir, 'journal.jsonl'), `${JSON.stringify(row)}\n`, { mode: 0o600 });

    const result = await t.hedge(`resume ${id} --json`, { env: { HEDGE_BASE_URL: bare } });
    expect(result.code, result.stderr).toBe(2);
    const { error } = JSON.parse(result.stderr.trim().split('\n').at(-1)!);
    expect(error).toMatchObject({ code: 'off_origin', class: 'usage' });
    expect(error.message).toBe(
      `Journal ${id} (api POST ${path}) is not resumed: its path "${path}" is not one \`hedge api\` journals (resolved under the base URL it is "/${path}"); nothing was sent.`,
    );
    expect(other.seen).toEqual([]);
    expect(t.requests()).toEqual([]);
    expect(result.stderr).not.toContain(t.apiKey);
  });

  it("a fresh `hedge api` of the same path goes to the base URL's own host, never the other one", async () => {
    const t = await start();
    const other = await startOtherOrigin();
    others.push(other);
    const result = await t.hedge(['api', `@127.0.0.2:${other.port}/steal`], {
      env: { HEDGE_BASE_URL: `http://127.0.0.1:${t.sandbox.port}` },
    });
    // The simulator has nothing at that path (404, exit 3): the point is where it was asked.
    expect(result.code).toBe(3);
    expect(t.requests().map((entry) => [entry.method, entry.path])).toEqual([
      ['GET', `/@127.0.0.2:${other.port}/steal`],
    ]);
    expect(other.seen).toEqual([]);
  });
});

describe('plain http:// only to loopback', () => {
  // A name under .localhost is refused: base-url-origin.test.ts (the rule, its one line) and
  // reliability/bad-input.test.ts (HEDGE_BASE_URL refused before anything is sent).
  it('a localhost base URL still reaches the simulator', async () => {
    const t = await start();
    const result = okJson(
      await t.hedge('account --json', {
        env: { HEDGE_BASE_URL: t.baseUrl.replace('//127.0.0.1:', '//localhost:') },
      }),
    );
    expect(result).toHaveProperty('balance_usdc');
    expect(t.requests().map((entry) => [entry.method, entry.path, entry.status])).toEqual([['GET', '/account', 200]]);
  });
});

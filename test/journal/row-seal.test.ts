// A journal row's seal covers the row's identity (id, place, time) and everything a resend is
// decided and built from: a change to any of those fields, a seal made under another key, or a seal
// in another form is `forged`; no seal, or an older hedge's (v1, which did not cover the row's
// identity), is `unsealed`.
import { rowSealer, type SealedFields } from '../../src/platform/journal/row-integrity.js';

const KEY = 'sk_test_row_seal_unit_000000000000';

const row: SealedFields = {
  id: 'a_mwrrf5p1',
  seq: 41,
  created_at: '2026-11-23T09:00:00.000Z',
  environment: 'test',
  base_url_host: 'api.example:443',
  key_id: 'abcdef012345',
  host: 'desk-1',
  command: 'add',
  request: { method: 'POST', path: '/hedges/add', body: { market: 'USDTNGN', side: 'buy', notional_usd: 1000 } },
  idempotency_key: 'k-1',
  group: 'keep-1',
  leg: 'converge',
  via: 'keeper',
  context: { baseline_notional_usd: 500, server_time_ms: 1_795_000_000_000 },
};

const sealer = rowSealer(KEY);
const seal = sealer.seal(row);

it('verifies the row it sealed, whatever the order of its keys (as a store gives them back)', () => {
  expect(seal).toMatch(/^v2\.[A-Za-z0-9_-]{43}$/);
  expect(sealer.trust({ ...row, seal })).toBe('verified');
  const { request: _request, ...rest } = row;
  const reordered = JSON.parse(
    JSON.stringify({
      seal,
      request: {
        body: { notional_usd: 1000, side: 'buy', market: 'USDTNGN' },
        path: row.request.path,
        method: 'POST',
      },
      ...rest,
    }),
  );
  expect(sealer.trust(reordered)).toBe('verified');
  // The API key itself is nowhere in the seal.
  expect(seal).not.toContain(KEY);
});

it('a row without a seal is unsealed; a changed field, another key or another form is forged', () => {
  expect(sealer.trust(row)).toBe('unsealed');
  const changes: Array<Partial<SealedFields>> = [
    // A genuine row copied as another: a new id, the next place, a later time.
    { id: 'a_mwrrf5p2' },
    { seq: 42 },
    { seq: undefined },
    { created_at: '2026-11-24T09:00:00.000Z' },
    { environment: 'live' },
    { base_url_host: 'evil.example:443' },
    { key_id: '000000000000' },
    { host: 'desk-2' },
    { command: 'open' },
    { request: { ...row.request, method: 'PUT' } },
    { request: { ...row.request, path: '@127.0.0.2:4044/steal' } },
    { request: { ...row.request, body: { ...(row.request.body as object), notional_usd: 66_666 } } },
    // A key named __proto__ as a row read from JSON has it: a field like any other.
    {
      request: {
        ...row.request,
        body: JSON.parse(`{"__proto__":{"tenor_days":3},${JSON.stringify(row.request.body).slice(1)}`),
      },
    },
    { idempotency_key: 'k-2' },
    { group: 'keep-2' },
    { leg: 'reopen' },
    { via: undefined },
    // What a resume judges the key's age and its verdict by.
    { context: { baseline_notional_usd: 500, server_time_ms: 1_795_999_000_000 } },
    { context: undefined },
  ];
  for (const change of changes)
    expect(sealer.trust({ ...row, ...change, seal }), JSON.stringify(change)).toBe('forged');
  expect([
    rowSealer('sk_test_someone_else_00000000000000').trust({ ...row, seal }),
    sealer.trust({ ...row, seal: seal.replace(/^v2\./, 'v0.') }),
    sealer.trust({ ...row, seal: 'v2.' }),
    sealer.trust({ ...row, seal: 42 }),
  ]).toEqual(['forged', 'forged', 'forged', 'forged']);
});

it("an older hedge's seal (v1: the row's id, place and time not covered) is not trusted to send: unsealed", () => {
  expect(sealer.trust({ ...row, seal: seal.replace(/^v2\./, 'v1.') })).toBe('unsealed');
});

// What the operator may type, checked before any request (src/core/input.ts).
import {
  parseClientReference,
  parseHedgeId,
  idMatches,
  parseListLength,
  parseMarket,
  parseStatus,
  parseTenor,
} from '../../src/core/input.js';
import { usageRefusal } from '../support/output/refusal.js';

/** The one line `parse` refuses `raw` with. */
const refusal = <Raw>(parse: (raw: Raw) => unknown, raw: Raw) => usageRefusal(() => parse(raw));

it('market refuses what cannot be a market name, naming the argument', () => {
  expect(refusal(parseMarket, 'USD-NGN')).toMatch(/^market: "USD-NGN" is not a market name/);
  expect(refusal(parseMarket, 'US')).toMatch(/^market: /);
  expect(refusal(parseMarket, undefined)).toBe('market: missing; expected a market such as USDTNGN.');
  expect(refusal(parseMarket, 'USDТNGN')).toMatch(/outside plain ASCII/); // Cyrillic Т
});

// Trimmed and upper-cased market, side in any case, tenor 7d: test/reliability/bad-input.test.ts (normalised and sent).
// What --limit takes and refuses: decimals.test.ts.
it('tenor missing names the three tenors; without --limit or --all a list is 50 rows long; status is one of the five hedge states', () => {
  expect([
    refusal(parseTenor, undefined),
    parseListLength(undefined, undefined),
    [parseStatus(undefined), parseStatus('FILLED')],
    refusal(parseStatus, 'open'),
  ]).toEqual([
    '--tenor: missing; expected 1, 3 or 7 (days).',
    { limit: 50, defaulted: true },
    [undefined, 'filled'],
    '--status: "open" is not allowed; expected one of submitting, submitted, filled, failed, closed.',
  ]);
});

it('hedge id and client reference: accepts hdg_ ids, and the part of one a table shows (its start, its end, or both around …)', () => {
  expect(parseHedgeId('hdg_0000084560jvkcy5rq90dq9k')).toBe('hdg_0000084560jvkcy5rq90dq9k');
  for (const part of 'hdg_000…dq9k hdg_000...dq9k 9k hdg_00'.split(' ')) expect(parseHedgeId(part)).toBe(part);
  expect(refusal(parseHedgeId, '12.45')).toMatch(/^id: "12.45" is not a hedge id/);
  expect(refusal(parseHedgeId, 'hdg_../../account')).toMatch(/^id: /);
  expect(refusal(parseHedgeId, 'a…b…c')).toMatch(/^id: /);
});

it('hedge id and client reference: a typed part names an id by its start, its end, or both around … (case aside)', () => {
  const id = 'hdg_0mww3xgna00001ne5igmepa6';
  for (const typed of [id, 'HDG_0MW', 'epa6', 'hdg_0mw…epa6', 'hdg_0mw...pa6', '…pa6', 'hdg_…'])
    expect(idMatches(typed, id), typed).toBe(true);
  for (const typed of ['0mw', 'hdg_0mw…epa7', `${id}…${id}`, '', 'hdg_0mww3xgna0000…1ne5igmepa6'])
    expect(idMatches(typed, id), typed).toBe(false);
});

it('hedge id and client reference: accepts a printable client reference up to 128 characters', () => {
  expect([parseClientReference('DEAL-42'), parseClientReference(undefined)]).toEqual(['DEAL-42', undefined]);
  expect(refusal(parseClientReference, 'a\tb')).toMatch(/^--ref: /);
  expect(refusal(parseClientReference, 'x'.repeat(129))).toMatch(/^--ref: .*\(129 characters\)/);
});

// The pure parts of `hedge api`: the path rule (security/base-url.ts), -f/-F parameters and -H
// headers (domain/api-params.ts); where the next page is: wire-paging.test.ts.
import { describe, expect, it } from 'vitest';
import { buildParams, parseApiMethod, parseHeader, queryStringOf } from '../../src/core/api-params.js';
import { UsageError } from '../../src/core/errors.js';
import { resolveApiPath } from '../../src/core/security/base-url.js';

const BASE = 'https://api.example.com/partners/acme/v2';
/** A -f (string) and a -F (typed) parameter as written. */
const f = (raw: string) => ({ raw, typed: false });
const F = (raw: string) => ({ raw, typed: true });

describe('resolveApiPath: relative to the base URL, never another host', () => {
  it.each([
    ['/hedges', '/hedges'],
    ['hedges/hdg_1', '/hedges/hdg_1'],
    ['/hedges?status=filled&limit=5', '/hedges?status=filled&limit=5'],
    ['/hedges/../markets', '/markets'],
    ['/', ''],
    ['/@evil.example/x', '/@evil.example/x'],
  ])('%s → %s', (raw, path) => {
    expect(resolveApiPath(BASE, raw)).toBe(path);
  });

  // Another host, an absolute URL, a climb out, an encoded slash, a backslash: also through the binary
  // (test/scripting/scripting-api.test.ts), nothing sent.
  it.each([
    ['HTTP://api.example.com/partners/acme/v2/hedges', 'is an absolute URL'],
    ['mailto:x@example.com', 'is an absolute URL'],
    ['..', 'climbs out of the base path'],
    ['/a/%2E%2e/%2e%2e/x', 'climbs out of the base path'],
    ['/hedges%2F..%2F..%2Fv1', 'has an encoded slash'],
    ['/hedges\\..\\x', 'has a backslash'],
    ['/hedges#x', 'has a fragment'],
    ['/hedges x', 'has spaces or control characters'],
    ['/hedges\u001b[2J', 'has spaces or control characters'],
    ['/hedges/%zz', 'is not an escape'],
    ['', 'is empty'],
  ])('%j is refused: %s', (raw, why) => {
    expect(() => resolveApiPath(BASE, raw)).toThrow(UsageError);
    expect(() => resolveApiPath(BASE, raw)).toThrow(why);
  });
});

describe('-f / -F parameters', () => {
  it('-f is a string; -F types literals and numbers, reads @file; keys nest and append', () => {
    const files: Record<string, string> = { 'ref.txt': 'DEAL-9' };
    const params = buildParams(
      [
        f('market=USDTNGN'),
        f('notional_usd=10000'),
        F('tenor_days=3'),
        F('rate=-1.5e2'),
        F('ok=true'),
        F('none=null'),
        F('ref=@ref.txt'),
        F('plain=a=b'),
        f('leg[side]=buy'),
        F('leg[size]=5'),
        f('tags[]=a'),
        f('tags[]=b'),
      ],
      (file) => files[file],
    );
    expect(params).toEqual({
      market: 'USDTNGN',
      notional_usd: '10000',
      tenor_days: 3,
      rate: -150,
      ok: true,
      none: null,
      ref: 'DEAL-9',
      plain: 'a=b',
      leg: { side: 'buy', size: 5 },
      tags: ['a', 'b'],
    });
  });

  it('refuses what is not key=value, a key set twice, and a group in a query string', () => {
    expect(() => buildParams([f('market')], () => '')).toThrow('-f: "market" is not key=value.');
    expect(() => buildParams([F('=x')], () => '')).toThrow('-F: "=x" is not key=value.');
    expect(() => buildParams([f('a=1'), f('a=2')], () => '')).toThrow(/sets a a second time/);
    expect(() => buildParams([f('a[]x=1')], () => '')).toThrow(/no usable key/);
    expect(queryStringOf({ status: 'filled', limit: 5, tags: ['a', 'b'] })).toBe('status=filled&limit=5&tags=a&tags=b');
    expect(() => queryStringOf({ leg: { side: 'buy' } })).toThrow(/a GET carries its parameters in the query string/);
  });

  it('-H: "Name: value"; Authorization and the headers hedge sets are refused', () => {
    expect(parseHeader('X-Desk:  fx-1 ')).toEqual(['X-Desk', 'fx-1']);
    for (const name of ['Authorization', 'authorization', 'Idempotency-Key', 'Host', 'Cookie', 'Content-Length']) {
      expect(() => parseHeader(`${name}: x`)).toThrow(new RegExp(`^-H: ${name} cannot be set`));
    }
    expect(() => parseHeader('no colon')).toThrow(/is not "Name: value"/);
    expect(() => parseHeader('X-A: b\r\nX-B: c')).toThrow(/line break/);
    expect(parseApiMethod(undefined)).toBe('GET');
    expect(parseApiMethod('post')).toBe('POST');
    expect(() => parseApiMethod('TRACE')).toThrow(
      '-X: "TRACE" is not allowed; expected GET, POST, PUT, PATCH, DELETE.',
    );
  });
});

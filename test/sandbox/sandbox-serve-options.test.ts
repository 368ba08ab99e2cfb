// `hedge sandbox serve`'s flags for the behaviours a test switches on: each reaches the simulator
// as its option, in ms, and a value outside its range is a usage error before anything starts.
import { describe, expect, it } from 'vitest';

import { parseSandboxServeOptions } from '../../src/cli/cmd/tools/sandbox-serve.js';
import { UsageError } from '../../src/core/errors.js';

type ServeInput = Parameters<typeof parseSandboxServeOptions>[0];
const parse = (options: Record<string, unknown>) => parseSandboxServeOptions({ args: {}, options } as ServeInput);

describe('hedge sandbox serve: trailing views, several per side, late settlement, short days', () => {
  it('maps seconds to ms and the flag to severalPerSide, and leaves each unset without its flag', () => {
    expect(parse({ viewLag: '3', severalPerSide: true, settlementDelay: '2.5', day: '60' })).toMatchObject({
      viewLagMs: 3_000,
      severalPerSide: true,
      settlementDelayMs: 2_500,
      dayMs: 60_000,
    });
    expect(parse({ viewLag: '0', day: '0.001' })).toMatchObject({ viewLagMs: 0, dayMs: 1 });
    // Each unset without its flag: the dialect and the simulator decide.
    const unset = parse({});
    expect([unset.viewLagMs, unset.severalPerSide, unset.settlementDelayMs, unset.dayMs]).toEqual(
      Array(4).fill(undefined),
    );
  });

  it.each([
    ['viewLag', '-1', /^--view-lag: "-1" is not allowed/],
    ['viewLag', 'soon', /^--view-lag: "soon" is not allowed/],
    ['settlementDelay', '86401', /^--settlement-delay: "86401" is not allowed/],
    ['day', '0', /^--day: "0" is not allowed; expected seconds from 0.001 to 86400/],
    ['day', '1.0001', /^--day: "1.0001" is not allowed/],
  ])('refuses --%s %s', (key, value, message) => {
    expect(() => parse({ [key]: value })).toThrow(UsageError);
    expect(() => parse({ [key]: value })).toThrow(message);
  });
});

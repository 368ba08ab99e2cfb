// The one place a time is cut into text (src/core/utc-text.ts): every cut of one instant, from
// ms, a Date or a server's ISO text (cut as it came, never read again).
import {
  utcClock,
  utcClockMillis,
  utcClockMinute,
  utcDay,
  utcDayMinute,
  utcDaySecond,
  utcMinute,
  utcMonth,
  utcSecond,
  utcStamp,
} from '../../src/core/utc-text.js';

const ms = Date.UTC(2026, 10, 25, 8, 4, 9, 120);

it.each([ms, new Date(ms), '2026-11-25T08:04:09.120Z'])('utc-text cuts %s into each precision', (at) => {
  expect([
    utcDay(at),
    utcMonth(at),
    utcMinute(at),
    utcSecond(at),
    utcDayMinute(at),
    utcDaySecond(at),
    utcClockMinute(at),
    utcClock(at),
    utcClockMillis(at),
    utcStamp(at),
  ]).toEqual(
    '2026-11-25,2026-11,2026-11-25 08:04,2026-11-25 08:04:09,11-25 08:04,11-25 08:04:09,08:04,08:04:09,08:04:09.120,20261125T080409120Z'.split(
      ',',
    ),
  );
});

it("utc-text cuts a server's text as it came, in its own offset (never read again)", () => {
  expect(utcSecond('2026-11-25T10:04:09+02:00')).toBe('2026-11-25 10:04:09');
});

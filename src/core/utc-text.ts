// Times as text, in UTC: the one place an ISO 8601 string is cut into a day, a minute or a clock.

type Instant = number | Date | string;

export const utcIso = (at: Instant) => (typeof at === 'string' ? at : new Date(at).toISOString());

/** The ISO text of a time from `start` to `end`; `spaced`: its T written as a space. */
const cut = (start: number, end: number, spaced?: boolean) => (at: Instant) => {
  const text = utcIso(at).slice(start, end);
  return spaced ? text.replace('T', ' ') : text;
};

export const utcDay = cut(0, 10);

export const utcMonth = cut(0, 7);

export const utcMinute = cut(0, 16, true);

export const utcSecond = cut(0, 19, true);

/** `11-25 08:00`: a time near now (a keeper's line), its year left out. */
export const utcDayMinute = cut(5, 16, true);

export const utcDaySecond = cut(5, 19, true);

export const utcClockMinute = cut(11, 16);

export const utcClock = cut(11, 19);

export const utcClockMillis = cut(11, 23);

/** `20261125T080000000Z`: a time in an id (a keeper's, a roll's, an apply's group). */
export const utcStamp = (at: Instant) => utcIso(at).replace(/[-:.]/g, '');

// Times as text, in UTC: the one place an ISO 8601 string is cut into a day, a minute or a clock.

type Instant = number | Date | string;

export const utcIso = (at: Instant) => (typeof at === 'string' ? at : new Date(at).toISOString());

export const utcDay = (at: Instant) => utcIso(at).slice(0, 10);

export const utcMonth = (at: Instant) => utcIso(at).slice(0, 7);

export const utcMinute = (at: Instant) => utcIso(at).slice(0, 16).replace('T', ' ');

export const utcSecond = (at: Instant) => utcIso(at).slice(0, 19).replace('T', ' ');

/** `11-25 08:00`: a time near now (a keeper's line), its year left out. */
export const utcDayMinute = (at: Instant) => utcIso(at).slice(5, 16).replace('T', ' ');

export const utcDaySecond = (at: Instant) => utcIso(at).slice(5, 19).replace('T', ' ');

export const utcClockMinute = (at: Instant) => utcIso(at).slice(11, 16);

export const utcClock = (at: Instant) => utcIso(at).slice(11, 19);

export const utcClockMillis = (at: Instant) => utcIso(at).slice(11, 23);

/** `20261125T080000000Z`: a time in an id (a keeper's, a roll's, an apply's group). */
export const utcStamp = (at: Instant) => utcIso(at).replace(/[-:.]/g, '');

// Durations as a person types them: `30m`, `6h`, `1d`, `1d12h`, `2w`.
import { UsageError } from './errors.js';
import { echo } from './input.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const DURATION_SHAPE = /^(\d+(\.\d+)?[smhdw])+$/;
const DURATION_EXAMPLES = ['30m', '6h', '1d', '1d12h', '2w'];
/** Hedges run for at most 7 days; a year leaves room for anything a desk schedules around them. */
const MAX_DURATION_MS = 366 * 86_400_000;

/** Parses a duration; throws a UsageError (exit 2) whose message starts with `name:` and says what is allowed. */
export function parseDuration(raw: string, name: string, units = 'mhdw', maxMs = MAX_DURATION_MS) {
  const value = raw.trim().toLowerCase().replace(/\s+/g, '');
  // Only examples this option takes: `--within 30m` is refused, so its message never offers 30m.
  const examples = DURATION_EXAMPLES.filter((example) =>
    [...example.replace(/\d/g, '')].every((unit) => units.includes(unit)),
  );
  const allowed = `a duration such as ${examples.slice(0, -1).join(', ')} or ${examples.at(-1)} (${units.split('').join(', ')})`;
  const ok = DURATION_SHAPE.test(value) && [...value.matchAll(/[smhdw]/g)].every(([unit]) => units.includes(unit));
  if (!ok) throw new UsageError(`${name}: ${echo(raw)} is not allowed; expected ${allowed}.`);
  let ms = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)([smhdw])/g)) ms += Number(amount) * UNIT_MS[unit];
  if (!(ms > 0) || ms > maxMs)
    throw new UsageError(
      `${name}: ${echo(raw)} is not allowed; expected ${allowed}, more than 0${maxMs === MAX_DURATION_MS ? ' and at most 366d' : ''}.`,
    );
  return { ms: Math.round(ms), text: value };
}

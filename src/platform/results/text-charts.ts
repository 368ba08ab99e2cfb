// Charts made of characters, plain strings with no colour: a negative bar is drawn with another character than a
// positive one, so it reads in monochrome.

/** A sparkline's levels, lowest first (a flat series is drawn at ▄, a value that is not a number as a gap). */
const SPARK_LEVELS = '▁▂▃▄▅▆▇█';

/** `sparkline([1, 5, 3])` → `▁█▄`; at most `width` characters when given (a positive integer). */
export function sparkline(values: readonly number[], width?: number) {
  // Longer than the width: in `width` equal slices, each the mean of its numbers (NaN: none).
  const slices = width !== undefined && width >= 1 ? Math.floor(width) : Infinity;
  const series =
    values.length <= slices
      ? values
      : Array.from({ length: slices }, (_, slice) => {
          const start = Math.floor((slice * values.length) / slices);
          const end = Math.floor(((slice + 1) * values.length) / slices);
          const finite = values.slice(start, end).filter(Number.isFinite);
          return finite.length ? finite.reduce((sum, value) => sum + value, 0) / finite.length : NaN;
        });
  // A loop, not Math.min(...values): a spread of a very long series overflows the call stack.
  let low = Infinity;
  let high = -Infinity;
  for (const value of series.filter(Number.isFinite)) {
    low = Math.min(low, value);
    high = Math.max(high, value);
  }
  return series
    .map((value) => {
      if (!Number.isFinite(value)) return ' ';
      if (high === low) return '▄';
      return SPARK_LEVELS[Math.round(((value - low) / (high - low)) * (SPARK_LEVELS.length - 1))];
    })
    .join('');
}

/** A signed bar of exactly `width` cells around a middle axis `│`, `█` right of it, `▒` left; a value that is not zero shows at least one cell. */
export function bar(value: number, maxAbs: number, width: number) {
  const total = Math.max(3, Math.floor(width));
  const left = Math.floor((total - 1) / 2);
  const right = total - 1 - left;
  const usable = Number.isFinite(value) && Number.isFinite(maxAbs) && maxAbs > 0 && value !== 0;
  const length = usable
    ? Math.max(1, Math.round(Math.min(1, Math.abs(value) / maxAbs) * (value < 0 ? left : right)))
    : 0;
  return value < 0
    ? `${' '.repeat(left - length)}${'▒'.repeat(length)}│${' '.repeat(right)}`
    : `${' '.repeat(left)}│${'█'.repeat(length)}${' '.repeat(right - length)}`;
}

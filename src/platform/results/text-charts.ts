// Charts made of characters, plain strings with no colour: a negative bar is drawn with another character than a
// positive one, so it reads in monochrome.

const SPARK_LEVELS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;
const SPARK_FLAT = '▄';
const SPARK_GAP = ' ';

const BAR_POSITIVE = '█';
const BAR_NEGATIVE = '▒';
const BAR_AXIS = '│';

function downSample(values: readonly number[], width: number) {
  if (values.length <= width) return [...values];
  const slices: number[] = [];
  for (let slice = 0; slice < width; slice += 1) {
    const start = Math.floor((slice * values.length) / width);
    const end = Math.floor(((slice + 1) * values.length) / width);
    const finite = values.slice(start, end).filter(Number.isFinite);
    slices.push(finite.length ? finite.reduce((sum, value) => sum + value, 0) / finite.length : Number.NaN);
  }
  return slices;
}

/** `sparkline([1, 5, 3])` → `▁█▄`; at most `width` characters when given (a positive integer). */
export function sparkline(values: readonly number[], width?: number) {
  const series = width !== undefined && width >= 1 ? downSample(values, Math.floor(width)) : [...values];
  const finite = series.filter(Number.isFinite);
  if (!finite.length) return SPARK_GAP.repeat(series.length);
  // A loop, not Math.min(...values): a spread of a very long series overflows the call stack.
  let low = finite[0];
  let high = finite[0];
  for (const value of finite) {
    if (value < low) low = value;
    if (value > high) high = value;
  }
  return series
    .map((value) => {
      if (!Number.isFinite(value)) return SPARK_GAP;
      if (high === low) return SPARK_FLAT;
      const level = Math.round(((value - low) / (high - low)) * (SPARK_LEVELS.length - 1));
      return SPARK_LEVELS[level];
    })
    .join('');
}

/** A signed bar of exactly `width` cells around a middle axis; a value that is not zero shows at least one cell. */
export function bar(value: number, maxAbs: number, width: number) {
  const total = Math.max(3, Math.floor(width));
  const left = Math.floor((total - 1) / 2);
  const right = total - 1 - left;
  const usable = Number.isFinite(value) && Number.isFinite(maxAbs) && maxAbs > 0 && value !== 0;
  const share = usable ? Math.min(1, Math.abs(value) / maxAbs) : 0;
  const cells = (room: number) => (usable ? Math.max(1, Math.round(share * room)) : 0);
  if (usable && value < 0) {
    const length = cells(left);
    return `${' '.repeat(left - length)}${BAR_NEGATIVE.repeat(length)}${BAR_AXIS}${' '.repeat(right)}`;
  }
  const length = cells(right);
  return `${' '.repeat(left)}${BAR_AXIS}${BAR_POSITIVE.repeat(length)}${' '.repeat(right - length)}`;
}

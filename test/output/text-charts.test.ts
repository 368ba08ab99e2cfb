import { bar, sparkline } from '../../src/platform/results/text-charts.js';

it('sparkline maps the lowest value to ▁ and the highest to █, draws a flat series level, nothing as nothing, and gaps for values that are not numbers', () => {
  expect([
    sparkline([0, 1, 2, 3, 4, 5, 6, 7]),
    sparkline([-5, 5, 0]),
    sparkline([3, 3, 3]),
    sparkline([]),
    sparkline([1, Number.NaN, 3]),
  ]).toEqual(['▁▂▃▄▅▆▇█', '▁█▅', '▄▄▄', '', '▁ █']);
});

it('sparkline down-samples to the width by averaging equal slices', () => {
  const rising = Array.from({ length: 800 }, (_, index) => index);
  expect([
    sparkline(rising, 8),
    sparkline([0, 10, 10, 0], 2),
    sparkline([0, 0, 10, 10], 2),
    sparkline([1, 2], 10),
  ]).toEqual('▁▂▃▄▅▆▇█ ▄▄ ▁█ ▁█'.split(' '));
});

it('sparkline takes a very long series without overflowing the stack', () => {
  expect(
    sparkline(
      Array.from({ length: 300_000 }, (_, index) => index % 100),
      4,
    ),
  ).toHaveLength(4);
});

it('bar grows right of the axis for a positive value and left, in another character, for a negative one; shows a tiny value as one cell, zero as the axis alone, and clamps past maxAbs', () => {
  expect([
    ...[10, -10, 4, -4, 0.01, -0.01, 0].map((value) => bar(value, 10, 11)),
    bar(25, 10, 7),
    bar(5, 0, 7),
  ]).toEqual(
    '     │█████,▒▒▒▒▒│     ,     │██   ,   ▒▒│     ,     │█    ,    ▒│     ,     │     ,   │███,   │   '.split(','),
  );
});

it('bar is always exactly the width, so a column of bars lines up', () => {
  for (const value of [-25, -10, -0.01, 0, 0.01, 3, 10, 25]) {
    expect(bar(value, 10, 12), String(value)).toHaveLength(12);
  }
});

// The target file of `hedge plan` / `hedge apply` (src/core/target-file.ts): checked whole before
// anything is read from the server, every problem listed with the line it is on — and never with
// what the line holds (a file can be anything an agent named: only line, column and what is allowed).
import { parseTargetFile } from '../../src/core/target-file.js';

const HEADER = 'market,side,notional_usd,tenor_days';

const at = (line: number, message: string) => ({ line, message });
/** A parsed row; toEqual passes over the tenor and reference when they are undefined. */
const target = (
  market: string,
  side: string,
  notionalUsd: number,
  line: number,
  tenorDays?: number,
  clientReference?: string,
) => ({ market, side, notionalUsd, tenorDays, clientReference, line });

/** The problems (none when it reads) and the rows (none when it does not) of `text` read as the file `sourceName`. */
const problemsOf = (text: string, sourceName = 'targets.csv') =>
  ({ problems: [], ...parseTargetFile(text, { sourceName }) }).problems;
const rowsOf = (text: string, sourceName = 'targets.csv') =>
  ({ rows: [], ...parseTargetFile(text, { sourceName }) }).rows;

it('CSV target files: reads every notional form the CLI takes, 0 for flat, and the optional client reference; takes the columns in any order, with a BOM, CRLF, blank and comment lines counted in the line numbers; lists every problem of several bad rows with the file line of each (CRLF, blank and comment lines between); names the line a row starts on when a quoted field spans lines; stops at a broken quote, keeping the problems of the rows before it; refuses a header with unknown, repeated or missing columns; refuses an empty file and a header with no rows; refuses a client reference longer than the CLI allows, naming the column', () => {
  expect(
    rowsOf(
      [
        'market,side,notional_usd,tenor_days,client_reference',
        'usdtngn,BUY,10k,3,DEAL-1',
        'USDTNGN,sell,0,,',
        'USDTGHS,buy,"10,000",7,',
        'USDTGHS,sell,1.5m,1d,  DEAL#2  ',
        'USDTKES,buy,10_000.50,3,',
        'USDTKES,sell,0.00,7,',
      ].join('\n'),
    ),
  ).toEqual([
    target('USDTNGN', 'buy', 10_000, 2, 3, 'DEAL-1'),
    target('USDTNGN', 'sell', 0, 3),
    target('USDTGHS', 'buy', 10_000, 4, 7),
    target('USDTGHS', 'sell', 1_500_000, 5, 1, 'DEAL#2'),
    target('USDTKES', 'buy', 10_000.5, 6, 3),
    target('USDTKES', 'sell', 0, 7, 7),
  ]);
  expect(
    rowsOf(
      '\ufeff# book for Monday\r\n TENOR_DAYS , notional_usd,side,Market\r\n\r\n3,25k,sell,USDTNGN\r\n# a note\r\n,,,\r\n7,5000,buy,USDTNGN\r\n',
    ),
  ).toEqual([target('USDTNGN', 'sell', 25_000, 4, 3), target('USDTNGN', 'buy', 5_000, 7, 7)]);

  expect(
    problemsOf(
      [
        '# targets',
        HEADER + ',client_reference',
        'USDTNGN,buy,-5,3,',
        '',
        'X,hold,10k,,',
        '# flat the sell side',
        'USDTNGN,sell,0,5,',
        '   ',
        'USDTNGN,buy,20k,3,',
        'USDTGHS,buy,10k,,DEAL\u0007',
        'USDTGHS,sell,1.234,3,',
        'USDTGHS,sell,1k,3,',
        'USDTKES,buy,10k,3',
        'USDTKES,sell,10k,3,OK-1',
      ].join('\r\n'),
    ),
  ).toEqual([
    at(3, 'notional_usd: the value is not allowed; expected a positive USD amount such as 10000, 10_000, 10k or 1.5m.'),
    at(5, 'market: the value is not a market name; expected 3 to 20 letters and digits such as USDTNGN.'),
    at(5, 'side: the value is not allowed; expected buy or sell.'),
    at(5, 'tenor_days: missing; required when notional_usd is above 0; expected 1, 3 or 7 (days).'),
    at(7, 'tenor_days: the value is not allowed; expected 1, 3 or 7 (days).'),
    at(9, 'the same market and side as line 3; one row per market and side.'),
    at(10, 'tenor_days: missing; required when notional_usd is above 0; expected 1, 3 or 7 (days).'),
    at(
      10,
      'client_reference: the value is not allowed; expected 1 to 128 printable characters (no control, bidirectional or zero-width characters).',
    ),
    at(11, 'notional_usd: the value has more than 2 decimals (cents).'),
    at(12, 'the same market and side as line 11; one row per market and side.'),
    at(13, 'expected 5 fields as in the header, found 4.'),
  ]);

  expect(problemsOf(`${HEADER},client_reference\nUSDTNGN,buy,10k,3,"two\nlines"\nUSDTNGN,sell,abc,3,\n`)).toEqual([
    at(
      2,
      'client_reference: the value is not allowed; expected 1 to 128 printable characters (no control, bidirectional or zero-width characters).',
    ),
    at(4, 'notional_usd: the value is not allowed; expected a positive USD amount such as 10000, 10_000, 10k or 1.5m.'),
  ]);
  expect(problemsOf(`${HEADER},client_reference\nUSDTNGN,buy,"1\n0k",3,\n`)).toEqual([
    at(2, 'notional_usd: the value is not allowed; expected a positive USD amount such as 10000, 10_000, 10k or 1.5m.'),
  ]);
  expect(problemsOf([HEADER, 'USDTNGN,buy,nope,3', 'USDTNGN,sell,"10k"x,3', 'USDTGHS,buy,bad,3'].join('\n'))).toEqual([
    at(2, 'notional_usd: the value is not allowed; expected a positive USD amount such as 10000, 10_000, 10k or 1.5m.'),
    at(3, 'not valid CSV: a closing quote is followed by something other than a comma or the end of the line.'),
  ]);

  expect(problemsOf('market,side,notional,tenor_days,side\nUSDTNGN,buy,10k,3,buy\n')).toEqual([
    at(
      1,
      'column 3 of the header is not a known column; the columns are market, side, notional_usd, tenor_days and optionally client_reference, until, roll_before.',
    ),
    at(1, 'column side appears more than once.'),
    at(
      1,
      'the header lacks notional_usd; it must name market, side, notional_usd, tenor_days and optionally client_reference, until, roll_before, in any order.',
    ),
  ]);
  // Every required column present: an extra one is a problem, and the rows are still checked.
  expect(problemsOf(`# c\n${HEADER},desk\nUSDTNGN,buy,10k,9,fx\n`)).toEqual([
    at(
      2,
      'column 5 of the header is not a known column; the columns are market, side, notional_usd, tenor_days and optionally client_reference, until, roll_before.',
    ),
    at(3, 'tenor_days: the value is not allowed; expected 1, 3 or 7 (days).'),
  ]);
  expect(problemsOf('')).toEqual([
    at(
      0,
      'targets.csv is empty; expected a header row naming market, side, notional_usd, tenor_days and optionally client_reference, until, roll_before, then one row per market and side.',
    ),
  ]);
  expect(problemsOf('\ufeff\n# only a comment\n\n')).toHaveLength(1);
  expect(problemsOf(`${HEADER}\r\n\r\n`)).toEqual([
    at(0, 'targets.csv has no target rows; expected one row per market and side.'),
  ]);
  const long = 'R'.repeat(129);
  expect(problemsOf(`${HEADER},client_reference\nUSDTNGN,buy,10k,3,${long}\n`)).toEqual([
    at(
      2,
      'client_reference: the value is not allowed; expected 1 to 128 printable characters (no control, bidirectional or zero-width characters).',
    ),
  ]);
});

const JSON_FILE = 'targets.json';

it('JSON target files: reads an array of objects with the CSV keys, numbers or strings, line = item number; accepts the { "targets": [...] } wrapper; lists every problem, each message naming its item', () => {
  const text = JSON.stringify([
    { market: 'usdtngn', side: 'Buy', notional_usd: 10000, tenor_days: 3, client_reference: 'DEAL-7' },
    { market: 'USDTNGN', side: 'sell', notional_usd: 0 },
    { market: 'USDTGHS', side: 'sell', notional_usd: '2.5k', tenor_days: '7', client_reference: null },
  ]);
  expect(rowsOf(`  \n${text}`, JSON_FILE)).toEqual([
    target('USDTNGN', 'buy', 10_000, 1, 3, 'DEAL-7'),
    target('USDTNGN', 'sell', 0, 2),
    target('USDTGHS', 'sell', 2_500, 3, 7),
  ]);
  expect(
    rowsOf(
      '\ufeff{ "targets": [ { "market": "USDTNGN", "side": "buy", "notional_usd": 1500.25, "tenor_days": 1 } ] }',
      JSON_FILE,
    ),
  ).toEqual([target('USDTNGN', 'buy', 1_500.25, 1, 1)]);

  expect(
    problemsOf(
      JSON.stringify([
        { market: 'USDTNGN', side: 'buy', notional_usd: 10000, tenor_days: 3 },
        { market: 'USDTNGN', side: 'buy', notional_usd: true, tenor_days: 3, desk: 'fx' },
        'USDTNGN,sell,0',
        { market: 'USDTGHS', side: 'short', notional_usd: 0.001, tenor_days: [3] },
        { side: 'sell', notional_usd: -1 },
      ]),
      JSON_FILE,
    ),
  ).toEqual([
    at(2, 'item 2: notional_usd: expected a string or a number, found a boolean.'),
    at(
      2,
      'item 2: a key that is not known; the keys are market, side, notional_usd, tenor_days and optionally client_reference, until, roll_before.',
    ),
    at(2, 'item 2: the same market and side as item 1; one row per market and side.'),
    at(
      3,
      'item 3: expected an object with market, side, notional_usd, tenor_days and optionally client_reference, until, roll_before.',
    ),
    at(4, 'item 4: tenor_days: expected a string or a number, found an array.'),
    at(4, 'item 4: side: the value is not allowed; expected buy or sell.'),
    at(4, 'item 4: notional_usd: the value has more than 2 decimals (cents).'),
    at(5, 'item 5: market: missing; expected a market such as USDTNGN.'),
    at(
      5,
      'item 5: notional_usd: the value is not allowed; expected a positive USD amount such as 10000, 10_000, 10k or 1.5m.',
    ),
  ]);
});

it('JSON target files: refuses a key written twice in one object, as JSON reads keys (JSON.parse would keep the last) — naming only keys a target file has; refuses what is not JSON or not a list of targets, as a problem of the whole file; a CSV target file is read as JSON when it starts as JSON, and its reader quotes nothing of it', () => {
  // "\u006eotional_usd" is notional_usd as JSON reads it; braces, quotes and commas inside strings are text.
  const text = [
    '{"targets": [',
    '  {"market": "USDTNGN", "side": "buy", "notional_usd": 1000, "tenor_days": 3, "client_reference": "a\\"},{\\"x\\":1,"},',
    '  {"market": "USDTGHS", "side": "buy", "notional_usd": 1000, "\\u006eotional_usd": 99999, "tenor_days": 3},',
    '  {"market": "USDTKES", "side": "buy", "notional_usd": 1, "tenor_days": 3, "secret-word": 1, "secret-word": 2}',
    ']}',
  ].join('\n');
  expect(problemsOf(text, JSON_FILE)).toEqual([
    at(
      2,
      'item 2: the key notional_usd appears more than once (line 3, column 62); each key may appear once (JSON would keep only the last).',
    ),
    at(
      3,
      'item 3: a key appears more than once (line 4, column 94); each key may appear once (JSON would keep only the last).',
    ),
    at(
      3,
      'item 3: a key that is not known; the keys are market, side, notional_usd, tenor_days and optionally client_reference, until, roll_before.',
    ),
  ]);
  expect(
    problemsOf(
      '{"targets": [], "targets": [{"market": "USDTNGN", "side": "buy", "notional_usd": 1, "tenor_days": 3}]}',
      JSON_FILE,
    ),
  ).toEqual([
    at(
      0,
      'the key targets appears more than once in one object (line 1, column 17); each key may appear once (JSON would keep only the last).',
    ),
  ]);
  // The same key in two objects is not a repeat.
  expect(
    rowsOf(
      '[{"market": "USDTNGN", "side": "buy", "notional_usd": 1, "tenor_days": 3}, {"market": "USDTNGN", "side": "sell", "notional_usd": 0}]',
      JSON_FILE,
    ),
  ).toHaveLength(2);

  const [syntax, ...more] = problemsOf('[{"market": "USDTNGN"},]', JSON_FILE);
  expect([more, syntax.line]).toEqual([[], 0]);
  // V8 says "Unexpected token ']'" and quotes the input after it: only the kind of problem is kept, and where.
  expect(syntax.message).toBe(
    'targets.json is not valid JSON: a character that JSON does not allow there (line 1, column 24).',
  );
  // Where V8 gives a position in its own words, the reason and the line and column are said.
  expect(problemsOf('[{"market": "USDTNGN",\n "side" "buy"}]', JSON_FILE)[0].message).toMatch(
    /^targets\.json is not valid JSON: [A-Z][^"]+ \(line 2, column 9\)\.$/,
  );
  expect(problemsOf('{ "rows": [] }', JSON_FILE)).toEqual([
    at(0, 'targets.json: expected an array of targets or an object { "targets": [...] }.'),
  ]);
  expect(problemsOf('[]', JSON_FILE)).toEqual([
    at(0, 'targets.json has no target rows; expected one row per market and side.'),
  ]);
  // A CSV target file that starts as JSON (V8's "Unexpected token" quotes the input): only that a character is not allowed.
  const [problem, ...others] = problemsOf(`[${HEADER}]\n`, 'stdin');
  expect([others, problem.line, problem.message]).toEqual([
    [],
    0,
    'stdin is not valid JSON: a character that JSON does not allow there (line 1, column 2).',
  ]);
});

const SECRET = 'hpk_live_TopSecretKeyNeverEchoed42';
const files = [
  ['a password file', `root:x:0:0:${SECRET}:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n`],
  ['an env file', `API_KEY=${SECRET}\nDB_PASSWORD=${SECRET}\n`],
  [
    'a CSV with the right header and secret values',
    `${HEADER},client_reference\n${SECRET},${SECRET},${SECRET},${SECRET},${SECRET}\nUSDTNGN,buy,"${SECRET}\n`,
  ],
  [
    'a CSV with a secret in each column',
    `market,side,notional_usd,tenor_days\nUSDTNGN,${SECRET},10k,3\nUSDTNGN,sell,${SECRET},3\nUSDTNGN,buy,10k,${SECRET}\nX${SECRET.slice(0, 9)},buy,10k,3\n`,
  ],
  ['a bare JSON string', JSON.stringify(SECRET)],
  [
    'JSON with secret keys and values',
    JSON.stringify([
      {
        [SECRET]: 1,
        market: SECRET,
        side: SECRET,
        notional_usd: SECRET,
        tenor_days: SECRET,
        client_reference: `${SECRET}\u0007`,
      },
    ]),
  ],
  ['JSON that breaks after a secret', `[{"market": "${SECRET}", ${SECRET}}]`],
  ['JSON that starts like a secret', `{${SECRET}`],
  ['a quote opening inside a field', `${HEADER}\nUSD${SECRET}"x",buy,1k,3\n`],
];
it.each(files)(
  'a file that is not a target file at all: what it holds never comes back: %s: problems by line and column only',
  (_name, text) => {
    const problems = problemsOf(text, 'secrets.txt');
    expect(problems.length).toBeGreaterThan(0);
    for (const problem of problems) {
      // Not the secret, and no piece of it a dozen characters long either.
      for (let start = 0; start + 12 <= SECRET.length; start++)
        expect(problem.message).not.toContain(SECRET.slice(start, start + 12));
      expect(problem.message).not.toMatch(/root:|API_KEY|DB_PASSWORD|daemon/);
    }
  },
);

it("a target row's until: a day the calendar lacks or hour 24 is refused (never read as another day); a timestamp keeps every fraction digit it was written with", () => {
  const head = `${HEADER},until`;
  const refusal =
    'until: the value is not allowed; expected a date (2026-12-31, midnight UTC) or a timestamp with its zone (2026-12-31T17:00:00Z).';
  expect(
    problemsOf([head, 'USDTNGN,buy,10k,3,2027-02-30', 'USDTNGN,sell,5k,3,2027-01-15T24:00:00Z'].join('\n')),
  ).toEqual([at(2, refusal), at(3, refusal)]);
  const [row] = rowsOf([head, 'USDTNGN,buy,10k,3,2027-01-15T17:00:00.1234567890+01:00'].join('\n')) as {
    untilMs?: number;
  }[];
  expect(row.untilMs).toBe(Date.parse('2027-01-15T16:00:00.123Z'));
});

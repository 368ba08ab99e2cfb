import {
  hasUnsafeText,
  safeDeep,
  safeJson,
  safeMultiline,
  safeStyled,
  safeText,
  slackText,
} from '../../src/core/security/safe-text.js';
import { redactKey } from '../../src/core/security/secrets.js';

it.each([
  ['a window-title OSC, ESC and BEL included', '\u001b]0;pwned\u0007', '\\x1b]0;pwned\\x07'],
  ['a clear-screen CSI', '\u001b[2J', '\\x1b[2J'],
  ['cursor moves', 'ok\u001b[1A\u001b[2Kfilled', 'ok\\x1b[1A\\x1b[2Kfilled'],
  [
    'an OSC 52 clipboard write',
    '\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007',
    '\\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\x07',
  ],
  ['an OSC 52 ended by ST', '\u001b]52;c;aGk=\u001b\\', '\\x1b]52;c;aGk=\\x1b\\'],
  ['the 8-bit CSI', '\u009b2J', '\\x9b2J'],
  ['the other C1 controls', 'a\u0080b\u009fc', 'a\\x80b\\x9fc'],
  ['NUL', '\u0000', '\\x00'],
  ['TAB', 'a\tb', 'a\\x09b'],
  ['LF', 'line1\nline2', 'line1\\x0aline2'],
  ['CR', 'paid\rREFUND', 'paid\\x0dREFUND'],
  ['the last C0 control and DEL', '\u001f\u007f', '\\x1f\\x7f'],
  ['a right-to-left override', 'DEAL-\u202e24-LAED', 'DEAL-\\u202e24-LAED'],
  [
    'every bidi control',
    '\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069',
    '\\u061c\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069',
  ],
  ['a zero-width space', 'USDT\u200bNGN', 'USDT\\u200bNGN'],
  [
    'every zero-width and invisible character, the soft hyphen as \\u too',
    '\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u00ad',
    '\\u200c\\u200d\\u2060\\u2061\\u2062\\u2063\\u2064\\ufeff\\u180e\\u00ad',
  ],
  ['the line and paragraph separators (a cell is one line)', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
  ['a lone high surrogate', 'x\ud83dy', 'x\\ud83dy'],
  ['a lone low surrogate', 'x\ude00y', 'x\\ude00y'],
  ['surrogates in the wrong order', '\ude00\ud83d', '\\ude00\\ud83d'],
  ['nothing of a proper pair', '\ud83d\ude00', '😀'],
  ['nothing of a backslash already in the input', 'C:\\path\\x1b', 'C:\\path\\x1b'],
])('safeText: escape sequences are shown, never obeyed; invisible characters made visible: %s', (_what, raw, shown) => {
  expect(safeText(raw)).toBe(shown);
});

it('safeText: clean text passes untouched: returns the very same string for ordinary Unicode', () => {
  for (const clean of ['', 'USDTNGN', '₦1,530.33', 'Crème brûlée', '東京 市場', '😀 👍🏽 🇳🇬', '👩‍👩‍👧', 'a\\nb', 'x: "y"']) {
    expect([safeText(clean), safeMultiline(clean), hasUnsafeText(clean)]).toEqual([clean, clean, false]);
  }
});

it('safeText: clean text passes untouched: keeps a zero-width joiner inside an emoji, escapes one anywhere else', () => {
  for (const [value, expected] of [
    ['👩\u200d💻 🏳\ufe0f\u200d🌈 👨🏽\u200d💻', '👩\u200d💻 🏳\ufe0f\u200d🌈 👨🏽\u200d💻'],
    ['USDT\u200dNGN', 'USDT\\u200dNGN'],
    ['👩\u200dx', '👩\\u200dx'],
    ['\u200d👩', '\\u200d👩'],
  ] as const)
    expect(safeText(value), String(value)).toBe(expected);
  expect(hasUnsafeText('👩\u200d💻')).toBe(false);
});

it('safeMultiline keeps LF and escapes everything else, CR included', () => {
  expect(safeMultiline('first\nsecond\u001b[2J\r\tend\u202e')).toBe('first\nsecond\\x1b[2J\\x0d\\x09end\\u202e');
});

it('hasUnsafeText refuses controls, bidi, zero-width and lone surrogates', () => {
  for (const bad of ['a\u001bb', 'a\tb', 'a\nb', 'a\u009bb', 'DEAL\u202e', 'DEAL\u200b', 'x\u00ady', 'x\ud800']) {
    expect(hasUnsafeText(bad)).toBe(true);
  }
});

// Everything a hostile server could put in a value or a key.
const NASTY = {
  'name\u202e': 'title \u001b]0;pwned\u0007 clear \u001b[2J',
  'zero\u200bwidth': ['\u009b2J', '\u007f', '\u0085 next line', 'sep\u2028ara\u2029tor', '\ufeffbom', 'shy\u00ad'],
  nested: { '\u2066iso\u2069': { lone: 'x\ud800y', pair: '😀', naira: '₦1,530.33', nul: '\u0000', tab: 'a\tb' } },
  numbers: [0, -1.5, 1e21],
  flags: [true, false, null],
  __proto__key: { ['__proto__']: 'stays data' },
};

it('safeJson is valid JSON that parses back to the same value, keys included', () => {
  for (const space of [undefined, 2]) {
    expect(JSON.parse(safeJson(NASTY, space))).toEqual(NASTY);
  }
});

it('safeJson leaves none of the raw characters JSON.stringify would', () => {
  const json = safeJson(NASTY);
  expect(JSON.stringify(NASTY)).toMatch(/[\u007f-\u009f\u00ad\u2028\u2029\u200b\u202e\u2066\u2069\ufeff]/);
  expect(json).not.toMatch(
    /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/,
  );
  for (const part of [
    '"name\\u202e"',
    '"\\u009b2J"',
    '"\\u007f"',
    '"sep\\u2028ara\\u2029tor"',
    '"x\\ud800y"',
    '"₦1,530.33"',
    '"😀"',
  ])
    expect(json).toContain(part);
});

it('safeJson writes the same as JSON.stringify for clean values, indentation included; writes null for what JSON cannot hold at the top level', () => {
  const clean = { market: 'USDTNGN', price: 1530.33, sides: ['buy', 'sell'], note: 'Crème ₦ 東京' };
  expect([safeJson(clean), safeJson(clean, 2)]).toEqual([JSON.stringify(clean), JSON.stringify(clean, null, 2)]);
  expect([safeJson(undefined), safeJson(null)]).toEqual(['null', 'null']);
});

it('safeJson redacts a key-shaped secret in names as well as values, and writes the rest as JSON.stringify does (a Date as its text)', () => {
  const key = 'hp_test_Secret0123456789xyz';
  const at = new Date(Date.UTC(2030, 0, 2));
  const json = safeJson({ [key]: { note: `sent ${key}` }, list: [{ [key]: 1 }], at }, 2);
  expect(json).not.toContain('Secret0123456789');
  expect(JSON.parse(json)).toEqual({
    [redactKey(key)]: { note: `sent ${redactKey(key)}` },
    list: [{ [redactKey(key)]: 1 }],
    at: '2030-01-02T00:00:00.000Z',
  });
});

it('safeDeep escapes every string and every key, and keeps the rest', () => {
  expect(safeDeep(NASTY)).toEqual({
    'name\\u202e': 'title \\x1b]0;pwned\\x07 clear \\x1b[2J',
    'zero\\u200bwidth': ['\\x9b2J', '\\x7f', '\\x85 next line', 'sep\\u2028ara\\u2029tor', '\\ufeffbom', 'shy\\u00ad'],
    nested: {
      '\\u2066iso\\u2069': { lone: 'x\\ud800y', pair: '😀', naira: '₦1,530.33', nul: '\\x00', tab: 'a\\x09b' },
    },
    numbers: [0, -1.5, 1e21],
    flags: [true, false, null],
    __proto__key: { ['__proto__']: 'stays data' },
  });
});

it('safeDeep returns a copy and leaves the input as it was; passes scalars through', () => {
  const input = { list: [{ a: 'x\u001by' }] };
  const output = safeDeep(input);
  expect(output).not.toBe(input);
  expect(output.list).not.toBe(input.list);
  expect([input.list[0].a, output.list[0].a]).toEqual(['x\u001by', 'x\\x1by']);
  expect([safeDeep(42), safeDeep(null), safeDeep('\u202e')]).toEqual([42, null, '\\u202e']);
});

it('safeDeep keeps a __proto__ key from the server as data, not as the prototype', () => {
  const parsed = JSON.parse('{"__proto__": {"polluted": "yes"}, "ok": "\\u001b"}');
  const output = safeDeep(parsed);
  expect(Object.getPrototypeOf(output)).toBe(Object.prototype);
  expect([Object.keys(output), [(output as { polluted?: string }).polluted, output.ok]]).toEqual([
    ['__proto__', 'ok'],
    [undefined, '\\x1b'],
  ]);
});

it("slackText (text a Slack channel renders) writes Slack's three control characters as entities: no channel ping, no link behind a label, no mention; applies safeText's rules too: controls, bidi and zero-width characters are visible escapes; returns clean text as it is; with safeDeep: every string and key of a payload", () => {
  expect([
    slackText('<!channel> <https://evil.example/login|Your key expired: re-authenticate here>'),
    slackText('<!here> <@U024BE7LH> <#C024BE7LR>'),
  ]).toEqual([
    '&lt;!channel&gt; &lt;https://evil.example/login|Your key expired: re-authenticate here&gt;',
    '&lt;!here&gt; &lt;@U024BE7LH&gt; &lt;#C024BE7LR&gt;',
  ]);
  // `&` first: an entity already in the text is shown as typed, not decoded by Slack.
  expect(slackText('a &lt; b & c > d')).toBe('a &amp;lt; b &amp; c &gt; d');
  expect(slackText('x\u001b]52;c;ZXZpbA==\u0007\u202e<y>\u200b')).toBe(
    'x\\x1b]52;c;ZXZpbA==\\x07\\u202e&lt;y&gt;\\u200b',
  );
  const clean = 'hedge keep alert — USDTNGN sell: refused — open failed: exposure_exceeded';
  expect(slackText(clean)).toBe(clean);
  expect(safeDeep({ 'a<b': ['<!channel>', 1, null], nested: { text: 'x\u001b&' } }, slackText)).toEqual({
    'a&lt;b': ['&lt;!channel&gt;', 1, null],
    nested: { text: 'x\\x1b&amp;' },
  });
});

it('safeStyled (our own coloured, tab-separated text carrying server strings) keeps colour codes, tabs and newlines, and shows every other escape sequence escaped; returns clean text as the same string', () => {
  const hostile = 'hdg_1\u001b]0;pwned\u0007\u001b[2J';
  const composed = `\u001b[32mFilled\u001b[39m\t${hostile}\nnext`;
  expect(safeStyled(composed)).toBe('\u001b[32mFilled\u001b[39m\thdg_1\\x1b]0;pwned\\x07\\x1b[2J\nnext');
  const clean = '\u001b[1mTitle\u001b[22m\ta\tb';
  expect(safeStyled(clean)).toBe(clean);
});

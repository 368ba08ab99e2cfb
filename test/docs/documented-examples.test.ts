// The commands the docs show, run: every line of README.md and docs/*.md that
// starts hedge — `hedge`, `./bin/hedge.js`, `npx hedge` or `node bin/hedge.js` — in an `sh`,
// `bash`, `console` or unlabelled block runs here as a reader would run it from the repository's
// root, and must exit as the doc implies; where the doc shows what a command prints, the shape of
// the output is compared. A line that cannot run in a test is in SKIPPED, with its reason. The rules:
//
// - Which lines. In a block with `$ ` prompts, each `$ ` line is a command and the lines under it
//   what it printed; in an `sh`/`bash` block without prompts, every line (a trailing `\` joins the
//   next). A `console` or unlabelled block without prompts is output or a synopsis (the usage lines
//   of command-reference.md), and blocks of other languages (json, ini, cron, sql) are
//   configuration: neither holds commands.
// - Which server. A reader without a key runs the docs against the simulator, and so does this
//   test: a line that reaches an account and has no `--demo` gets one, right after the launcher —
//   unless it names a `--profile` (run against it), or its block started and sourced a `hedge
//   sandbox serve`, which it then runs against as written. Lines about this machine rather than an account (LOCAL_COMMANDS: login, profile,
//   journal, completion, …) run as written. Profiles `desk` (current) and `old-desk` are saved, as
//   the docs' own scripted login does, against a simulator this file serves; `$HEDGE_KEY` and
//   `$HEDGE_URL` are its key and address.
// - Which state. Each block runs in a folder of its own (its cwd, holding a copy of docs/examples/
//   so that `docs/examples/…` resolves as from the root; a path under /tmp/ is moved into it) with
//   a config folder of its own (HOME and HEDGE_CONFIG_DIR: the demo's state, the journal, the
//   profiles, the keeper folder), its lines in order, and no tracked file changes. It starts from
//   the book the docs' examples assume (BOOK: README's `open … --ref DEAL-42`, and a sell under
//   DEAL-7 rolled once, so that history and reports have a closed hedge) — except a block that
//   opens a hedge, which starts flat, as such examples do.
// - Which process. A line runs in this process (the built front's main(), as bin/hedge.js calls
//   it), in its block's folder where it names a file; a line that serves until it is stopped, and
//   `hedge mcp` (its client closes a pipe), run as processes of their own.
// - Exit code. 0, unless the line's comment starts with `exit N` (`# exit 9`), or the line ends in
//   `; echo $?` and the last line of its output shows the code.
// - Shell. Words are split as a shell splits them (quotes, backslashes, `#` comments). The stages
//   of a pipe after hedge (`| jq …`) are dropped, and so are redirections of its output (`> f`,
//   `>> log`, `2>&1`): the test reads stdout itself. Before hedge, `printf %s X |` and `cat FILE |`
//   become its stdin, as `< FILE` does. After `;`, `||` or `&&`, what is not hedge is
//   dropped (`echo "exit $?"`, `notify-desk …`, `set -a`). `hedge sandbox serve … > FILE &` serves
//   in the background for the rest of the block (on a free port: blocks run side by side), and
//   `. ./FILE` takes the environment it printed. `$VAR` is one of startBlock()'s or set by an earlier
//   line of the block (`$(date -u +%F)` is today's date); anything else fails, naming it.
// - Servers. A line that serves until it is stopped (`hedge sandbox serve`, a keeper without
//   `--once`) runs until it says it is up, then is stopped by SIGTERM as a person stops it, and
//   must stop cleanly (exit 0). `hedge mcp` gets a client: one `initialize`, then the end of stdin.
// - Ids the docs make up (`hdg_01HX…`, `hdg_0mwsfav1v00001l2xaqvehat`, `a_mwrrf5p1`) stand for the
//   newest hedge or journal entry of the block's state. `--watch` gets `--count 1`: the docs show
//   how to start a live view, not how long to watch it. What a line's output assumes and its block
//   cannot make (a keeper running, under keep.md's status card) is made first: startKeeper().
// - Output. A block with prompts is a terminal (HEDGE_FORCE_TTY=1, COLUMNS=80); any other block a
//   script. What is compared is stdout, or, when that is empty, stderr without the banner that the
//   added `--demo` prints; numbers (with their sign), ids and runs of spaces are masked, as they
//   change from run to run. JSON: every key shown is a key of the output. A table: the columns
//   shown are the output's, in order (how many fit in 80 columns depends on the data), and when
//   they are all of them, each row shown has the shape of one printed. A card (`│ label │ value │`):
//   its first line, and its labels in order. Anything else: its first line.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { loginWith } from '../support/config-store.js';
import { ok } from '../support/cli-runs.js';
import { baseEnv, HEDGE_BIN, hedgeIn, ROOT, tempDir } from '../support/hedge-cli.js';
import { runMainInProcess } from '../support/hedge-in-process.js';
import { until } from '../support/polling.js';
import { SANDBOX_DIALECTS } from '../../src/sandbox/dialect-names.js';
import { startSimulator, type Simulator } from '../support/simulator.js';

// ---------------------------------------------------------------------------------------------
// What cannot run here, each with why. `match` is tried on the line as written (spaces collapsed);
// `compare` false runs the line but does not compare the output it shows (shown from a server
// the simulator cannot be). Every entry must match a line of the docs (a stale entry fails).
// ---------------------------------------------------------------------------------------------
const skip = (match: RegExp, why: string, compare = true) => ({ match, why, compare });
const SKIPPED = [
  skip(
    /^(?:\.\/bin\/hedge\.js|hedge) login --profile desk --base-url https:\/\/<your partner address>/,
    "a placeholder for your partner's address; asks for the key on a terminal (test/setup/profiles-login-tty.test.ts types one in a pty)",
  ),
  skip(
    /^hedge login --profile desk(?: #.*)?$/,
    'asks for the key, hidden, on a terminal (test/setup/profiles-login-tty.test.ts types one in a pty)',
  ),
  skip(
    /^hedge login --profile desk --key-command 'pass show hedge\/desk'/,
    'needs the `pass` password store with an entry hedge/desk (test/setup/key-command.test.ts runs a helper)',
  ),
  skip(
    /^hedge login --profile desk --move-key(?: #.*)?$/,
    'moves the key into the OS keyring: a test has none (no Secret Service), and must never write a real one (test/setup/keys-keyring.test.ts)',
  ),
  skip(
    /login --profile desk --journal-url postgres:|^HEDGE_JOURNAL_URL=postgres:\S+ hedge journal migrate|^hedge journal migrate --profile desk/,
    'needs a PostgreSQL server (test/journal/team-store.test.ts runs these where one is installed)',
  ),
  skip(
    /login --profile desk --base-url https:\/\/api\.example\.com\//,
    'a made-up server: login checks the key there before saving it',
  ),
  skip(
    /^hedge mcp --profile desk --root ~\/books$/,
    "names the reader's own folder of target files, ~/books (a --root that is not a directory is exit 2)",
  ),
  skip(/^hedge open$/, 'the wizard asks on a terminal (test/trade/wizard-open.test.ts answers it in a pty)'),
  skip(
    /^hedge resume a_mwrrf5p1$|^hedge journal resolve a_mwrrf5p1 --(?:not-)?landed$/,
    'needs an action whose outcome is unknown, a write killed in flight (test/journal/journal-commands.test.ts and journal-ambiguous.test.ts make, resolve and resume them)',
  ),
  skip(
    /^hedge resume z3f0c1a9b2d41 --yes$/,
    'needs a journal row forged by hand, with no seal (test/journal/forged-rows.test.ts writes one)',
  ),
  skip(
    /^hedge positions --until "sum\(\[\]\.net_pnl_usd\) > \\`500\\`" --timeout 3600$/,
    "waits up to an hour for the book to make 500 USD, which the simulator's book never does in a test",
  ),
  skip(
    /^\.\/dist-sea\/hedge --version$/,
    'the single executable is built by `npm run build:sea` (test/build/single-executable.test.ts builds and runs it)',
  ),
  skip(
    /^hedge positions --json # the server sent "notional_usd": "n\/a"/,
    'the output shown is of a server that sends "n/a" beside size_usd, which no simulator dialect does (test/api/json-keeps-everything.test.ts makes one)',
    false,
  ),
];

/** Commands about this machine, not an account ('': `hedge --version`): they run as written, never with `--demo` added. */
const LOCAL_COMMANDS = new Set(' login logout profile completion tools journal demo mcp sandbox help'.split(' '));

/** Global options that take a value (to find the command after them: `hedge --profile desk doctor`). */
const GLOBALS_WITH_VALUE = new Set('--profile --timeout --request-timeout --format --fields --query'.split(' '));

/**
 * The book a block starts from unless it opens a hedge: what README opens (its console examples
 * show it), and a deal rolled once (a closed hedge for `history`, `report`, `--ref DEAL-7`; its
 * close is the newest journal entry, `done`, which output.md's `--until "outcome=='done'"` waits for).
 */
const BOOK = [
  '--demo open USDTNGN buy 10000 --tenor 3 --ref DEAL-42',
  '--demo open USDTNGN sell 2000 --tenor 1 --ref DEAL-7',
  '--demo roll USDTNGN sell --tenor 7',
];

/**
 * The books the docs' `acct` examples assume (on the demo account, as every `acct` line runs): the textbook forward of
 * docs/accounting.md in the books of its company, US01 (docs/examples/company.json, record 1), its rates imported and
 * its relationship designated (records 2 and 3). A block that declares entities, designates or imports rates from a
 * file builds its own books from nothing instead.
 */
const ACCT_BOOKS = [
  ['--demo', 'acct', 'entities', join(ROOT, 'docs', 'examples', 'company.json')],
  ['--demo', 'acct', 'rates', join(ROOT, 'docs', 'examples', 'rates-eurusd.csv'), '--market', 'EURUSD'],
  ['--quote', 'USD per EUR'],
  ['--demo', 'acct', 'designate', join(ROOT, 'docs', 'examples', 'relationship.json')],
  ['--recorded-late', 'brought over from the 2018 spreadsheet'],
];

// ---------------------------------------------------------------------------------------------
// The docs' blocks and their command lines.
// ---------------------------------------------------------------------------------------------
/** Blocks that may hold commands; SCRIPT_KINDS hold them even without `$ ` prompts. */
const SHELL_KINDS = /^(?:sh|bash|shell|console|)$/;
const SCRIPT_KINDS = /^(?:sh|bash|shell)$/;

/**
 * A doc's shell blocks (`prompt`: `$ ` prompts, a terminal, and output shown under the commands) and
 * their command lines: each with its line in the doc (1-based), its text as written (without the
 * `$ ` prompt; continuation lines joined), what the doc shows it printed (prompt blocks only), as sh
 * reads it (no `shell` where it cannot be read: a `case` of a shell loop), whether it runs hedge,
 * and why it is skipped.
 */
function blocksOf(doc: string, markdown: string) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*$/.exec(lines[index]);
    if (!open) continue;
    const [, indent, fence, kind] = open;
    const close = new RegExp(`^\\s*\\${fence[0]}{${fence.length},}\\s*$`);
    const start = index + 1;
    while (++index < lines.length && !close.test(lines[index]));
    const body = lines.slice(start, index).map((text, at) => ({
      line: start + at + 1,
      text: text.startsWith(indent) ? text.slice(indent.length) : text.trimStart(),
    }));
    const prompt = body.some(({ text }) => text.startsWith('$ '));
    if (!SHELL_KINDS.test(kind) || (!prompt && !SCRIPT_KINDS.test(kind))) continue;
    const commands: Array<{ line: number; text: string; shown: string[] }> = [];
    for (let at = 0; at < body.length; at++) {
      const { line, text } = body[at];
      if (prompt && !text.startsWith('$ ')) commands.at(-1)?.shown.push(text);
      else {
        let command = prompt ? text.slice(2) : text;
        while (command.endsWith('\\') && at + 1 < body.length)
          command = `${command.slice(0, -1)} ${body[++at].text.trim()}`;
        if (command.trim()) commands.push({ line, text: command.trim(), shown: [] });
      }
    }
    for (const command of commands) while (command.shown.at(-1)?.trim() === '') command.shown.pop();
    const read = commands.map((command) => {
      const { line, text } = command;
      let shell;
      try {
        shell = parseShell(text);
      } catch (error) {
        // A line of another language (a `case` of a shell loop) is none of the docs' commands, unless it starts hedge.
        if (/(?:^|[\s|;&(])(?:hedge|\.\/bin\/hedge\.js|bin\/hedge\.js)\s/.test(text))
          UNREADABLE.push(`${doc}:${line}: ${(error as Error).message}`);
      }
      const hedge = shell?.pipelines.some((pipeline) => pipeline.stages.some(launcher)) ?? false;
      const skip = SKIPPED.find((entry) => entry.match.test(text.replace(/\s+/g, ' ')));
      return { doc, ...command, shell, hedge, skip };
    });
    blocks.push({ doc, line: start, prompt, lines: read });
  }
  return blocks;
}
type Block = ReturnType<typeof blocksOf>[number];
type DocLine = Block['lines'][number];

// ---------------------------------------------------------------------------------------------
// A shell line, read as sh reads it (what the docs use of it).
// ---------------------------------------------------------------------------------------------
type Part = { literal: string } | { variable: string } | { substitution: string };
/** A command's words, as written (partsOf() reads a word's parts), and its redirections. */
interface Simple {
  words: string[];
  redirects: Array<{ op: string; target?: string }>;
}
interface Pipeline {
  stages: Simple[];
  /** What follows it: `;`, `&&`, `||`, `&` (in the background) or nothing. */
  then: string;
}

/**
 * A line's tokens: blanks, a comment, an operator (`||`, `&&`, a redirection, `|`, `;`, `&`), a word
 * (quoted and escaped parts, `$(…)` and what else no operator or blank ends), or what cannot be read.
 */
const TOKEN =
  /\s+|#.*|\|\||&&|[0-9]?>&[0-9]|&>|[0-9]?>>?|<|[|;&]|(?:'[^']*'|"(?:\\.|[^"\\])*"|\$\([^)]*\)|\\.?|[^\s|;&<>'"\\$]|\$)+|([\s\S])/gy;
/** A word's parts outside double quotes; QUOTED, in them. */
const PART =
  /'(?<single>[^']*)'|"(?<double>(?:\\.|[^"\\])*)"|\\(?<escaped>.?)|\$\{(?<braced>[^}]*)\}|\$\((?<substitution>[^)]*)\)|\$(?<name>\?|[A-Za-z_]\w*)|(?<literal>[^'"\\$]+|\$)/gy;
const QUOTED =
  /\\(?<escaped>[\\"$`])|\$\{(?<braced>[^}]*)\}|\$\((?<substitution>[^)]*)\)|\$(?<name>\?|[A-Za-z_]\w*)|(?<literal>[^\\$]+|[\\$])/gy;

function partsOf(text: string, pattern = PART) {
  return [...text.matchAll(pattern)].flatMap(
    ({ groups: { single, double, escaped, braced, substitution, name, literal } = {} }): Part[] => {
      if (double !== undefined) return partsOf(double, QUOTED);
      if (braced !== undefined || name !== undefined) return [{ variable: braced ?? name }];
      if (substitution !== undefined) return [{ substitution }];
      return [{ literal: single ?? escaped ?? literal }];
    },
  );
}

function parseShell(text: string) {
  const pipelines: Pipeline[] = [];
  let stages: Simple[] = [];
  let simple: Simple = { words: [], redirects: [] };
  let pending: Simple['redirects'][number] | undefined;
  let comment = '';
  const endPipeline = (then?: string) => {
    if (pending) throw new Error(`"${pending.op}" without a target in: ${text}`);
    if (simple.words.length || simple.redirects.length) stages.push(simple);
    simple = { words: [], redirects: [] };
    if (then === undefined || !stages.length) return;
    pipelines.push({ stages, then });
    stages = [];
  };
  for (const { 0: token, 1: unreadable, index } of text.matchAll(TOKEN)) {
    if (unreadable) throw new Error(`cannot read ${text.slice(index)} in: ${text}`);
    if (/^\s/.test(token)) continue;
    if (token.startsWith('#')) comment = token.slice(1).trim();
    else if (token === '|') endPipeline();
    else if (/^(?:\|\||&&|;|&)$/.test(token)) endPipeline(token);
    else if (/^[0-9]?[<>]|^&>/.test(token)) {
      simple.redirects.push({ op: token });
      if (!/&[0-9]$/.test(token)) pending = simple.redirects.at(-1);
    } else if (pending) {
      pending.target = token;
      pending = undefined;
    } else simple.words.push(token);
  }
  endPipeline('');
  return { pipelines, comment };
}

/** Words before the command (`until`, `!`) and assignments (`HEDGE_PROFILE=desk`) come first. */
const KEYWORDS = new Set('until while if ! then do time'.split(' '));
const ASSIGNMENT = /^([A-Za-z_]\w*)=/;

/** The words that start hedge. */
const LAUNCHERS = new Set(['hedge', './bin/hedge.js', './dist-sea/hedge', 'npx hedge', 'node bin/hedge.js']);

/** Where hedge's own arguments start in a command, or undefined when it does not run hedge. */
function launcher({ words }: Simple) {
  const at = words.findIndex((word) => !KEYWORDS.has(word) && !ASSIGNMENT.test(word));
  const assignments = words.slice(0, at).filter((word) => ASSIGNMENT.test(word));
  for (const length of [1, 2])
    if (at >= 0 && LAUNCHERS.has(words.slice(at, at + length).join(' ')))
      return { assignments, args: words.slice(at + length) };
}

type Example = DocLine & { shell: ReturnType<typeof parseShell> };

/** A line that names hedge but cannot be read is a failure. */
const UNREADABLE: string[] = [];
const BLOCKS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
].flatMap((doc) => blocksOf(doc, readFileSync(join(ROOT, doc), 'utf8')));

const examplesIn = (block: Block) => block.lines.filter((line): line is Example => line.hedge);
const EXAMPLES = BLOCKS.flatMap(examplesIn);

/** Whether a doc line is run: not skipped, or skipped only from the comparison of its output. */
const isRun = (example: DocLine) => !example.skip || example.skip.compare === false;

// ---------------------------------------------------------------------------------------------
// Running: the world every block starts from, and a block's lines.
// ---------------------------------------------------------------------------------------------
const children = new Set<ChildProcess>();

/** Where and how a hedge process runs. */
type Env = Record<string, string>;
type RunIn = { cwd: string; env: Env; stdin?: string };

/**
 * A hedge process of its own; `printed` is what it has printed so far. Given `up`, it is returned
 * once that says it is up (a simulator, a keeper). end() is its exit code once it ends by itself
 * (SIGKILL after 20 s; null: killed, or never started); stop() ends it as a person does, by SIGTERM
 * (SIGKILL after 10 s).
 */
async function spawnHedge(args: string[], { stdin = '', ...where }: RunIn, up?: typeof UP.sandbox) {
  const child = spawn(process.execPath, [HEDGE_BIN, ...args], where);
  children.add(child);
  const closed = once(child, 'close').then(
    ([code]) => code as number | null,
    () => null,
  );
  child.stdin.on('error', () => {}).end(stdin);
  const printed = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const)
    child[stream].setEncoding('utf8').on('data', (chunk: string) => (printed[stream] += chunk));
  const end = (ms = 20_000) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    return closed.finally(() => clearTimeout(timer));
  };
  if (up)
    await until(() => up(printed.stdout, printed.stderr), `hedge ${args.join(' ')} to start`, {
      timeoutMs: 30_000,
      process: closed.then((code) => ({ code, stderr: `${printed.stdout}\n${printed.stderr}` })),
    }).catch((error) => {
      child.kill('SIGKILL');
      throw error;
    });
  return {
    printed,
    end,
    stop: () => (child.kill('SIGTERM'), end(10_000)),
  };
}

/** Whether a run may read a file relative to its folder: an argument (or an option's value after `=`) like a relative path. */
const namesAFile = (args: string[]) =>
  args.some((arg) => {
    const value = arg.slice(arg.indexOf('=') + 1);
    return !isAbsolute(value) && !value.includes('://') && /[/\\~]|\.[A-Za-z]\w*$/.test(value);
  });

/**
 * Runs in-process that read the working directory take it in turn: each runs with this process in
 * the line's folder, as a shell there runs it, and the folder is put back after it. Runs that read
 * no file and do not serve a folder go on meanwhile: no path of theirs is relative.
 */
let folderTurn: Promise<unknown> = Promise.resolve();

/**
 * Runs a hedge line. One that serves until it is stopped — `sandbox serve`, a keeper without
 * `--once` or `--dry-run` — runs until it says it is up, then is stopped as a person stops it
 * (SIGTERM): its exit code is that of the stop (0 when clean). `hedge mcp` serves its client on
 * stdin: it gets one `initialize`, then the end of its input, and must have answered it; its
 * client's end of input is the end of a pipe, so it runs as a process of its own in the line's
 * folder, as does a line with a setting Node reads at start. Any other runs in this process — the
 * built front's main(), as bin/hedge.js calls it and as test/support/hedge-cli.ts does — in the
 * line's folder where it names a file (in its turn: folderTurn).
 */
async function run(args: string[], options: RunIn) {
  const command = commandOf(args);
  const next = args[args.indexOf(command) + 1];
  if (
    command === 'sandbox' ||
    (command === 'keep' && next !== 'status' && !args.includes('--once') && !args.includes('--dry-run'))
  ) {
    const { printed, stop } = await spawnHedge(args, options, UP[command]);
    return { code: await stop(), ...printed };
  }
  const mcp = command === 'mcp';
  if (
    mcp ||
    options.env.TZ !== 'UTC' ||
    Object.keys(options.env).some((name) => /^(NODE_|PG|UV_|SSL_CERT_)/.test(name))
  ) {
    const { printed, end } = await spawnHedge(args, mcp ? { ...options, stdin: INITIALIZE } : options);
    const code = await end();
    if (mcp && code === 0 && !/"serverInfo":\{"name":"hedge"/.test(printed.stdout))
      throw new Error(`hedge mcp did not answer initialize:\n${printed.stdout}\n${printed.stderr}`);
    return { code, ...printed };
  }
  const main = () => runMainInProcess([...args], options.env, options.stdin ?? '');
  if (!namesAFile(args)) return main();
  const result = folderTurn.then(async () => {
    const before = process.cwd();
    process.chdir(options.cwd);
    try {
      return await main();
    } finally {
      process.chdir(before);
    }
  });
  folderTurn = result.catch(() => undefined);
  return result;
}

/** The simulator this file serves for the docs' logins, and the folders every block copies. */
let server: Simulator | undefined;
const world = tempDir('hedge-docs-');
const [flat, booked, accounted] = ['flat', 'booked', 'accounted'].map((name) => join(world.path, name));

beforeAll(async () => {
  mkdirSync(flat);
  server = await startSimulator({ preset: 'plain' });
  // `desk` first, so that it is the current profile, as after README's own login.
  for (const profile of ['desk', 'old-desk']) ok(await loginWith(flat, server, server.apiKey, ['--profile', profile]));
  cpSync(flat, booked, { recursive: true });
  // The two opens are on two sides: they may go at once.
  (await Promise.all(BOOK.slice(0, 2).map((line) => hedgeIn(booked, line)))).forEach(ok);
  ok(await hedgeIn(booked, BOOK[2]));
  cpSync(booked, accounted, { recursive: true });
  ok(await hedgeIn(accounted, ACCT_BOOKS[0]));
  ok(await hedgeIn(accounted, [...ACCT_BOOKS[1], ...ACCT_BOOKS[2]]));
  ok(await hedgeIn(accounted, [...ACCT_BOOKS[3], ...ACCT_BOOKS[4]]));
});

afterAll(async () => {
  await server?.close();
  for (const child of children) child.kill('SIGKILL');
  world.remove();
});

/** The command a hedge line runs (`doctor` in `hedge --profile desk doctor`); '' for `hedge --version`. */
function commandOf(args: string[]) {
  for (let at = 0; at < args.length; at++) {
    if (GLOBALS_WITH_VALUE.has(args[at])) at++;
    else if (!args[at].startsWith('-')) return args[at];
  }
  return '';
}

type BlockState = ReturnType<typeof startBlock>;

function env(state: BlockState, extra?: Env) {
  return {
    ...baseEnv(state.config),
    ...state.served,
    // A block with prompts is a person at an 80-column terminal.
    ...(state.block.prompt ? { HEDGE_FORCE_TTY: '1', COLUMNS: '80' } : {}),
    ...extra,
  };
}

/** A run of the block's, read by the test rather than a person: no terminal. */
const asScript = (state: BlockState) => ({ cwd: state.cwd, env: env(state, { HEDGE_FORCE_TTY: '0' }) });

/** `--demo` where a line reaches an account and no sourced simulator stands in for the reader's server; a line naming
 * a profile (saved in every block's config, against this file's simulator) runs against it: --demo beside it is refused. */
function withServer(state: BlockState, args: string[]) {
  if (
    args.includes('--demo') ||
    args.includes('--profile') ||
    state.served ||
    state.savedProfiles ||
    LOCAL_COMMANDS.has(commandOf(args))
  )
    return args;
  return ['--demo', ...args];
}

/** The newest hedge or journal entry of the block's state (for the ids the docs make up). */
async function newest(state: BlockState, what: string) {
  // `journal` is a local command: withServer() leaves it as it is.
  const result = await run(withServer(state, [what, '--query', '[0].id']), asScript(state));
  const id = JSON.parse(result.stdout || 'null');
  if (typeof id !== 'string')
    throw new Error(`no ${what} in the block's state to stand for the doc's id:\n${result.stderr}`);
  return id;
}

const MADE_UP_HEDGE_ID = /hdg_(?:[0-9a-z]{24}|[0-9A-Za-z]*…)/;

async function expand(state: BlockState, word: string) {
  let text = '';
  for (const part of partsOf(word)) {
    if ('literal' in part) text += part.literal;
    else if ('substitution' in part) {
      // The one command substitution of the docs' commands: a date in an idempotency key.
      if (part.substitution.trim() !== 'date -u +%F')
        throw new Error(`no rule for $(${part.substitution}) in "${word}"`);
      text += new Date().toISOString().slice(0, 10);
    } else if (part.variable === 'ID') text += await newest(state, 'hedges');
    else if (state.variables[part.variable] !== undefined) text += state.variables[part.variable];
    else throw new Error(`no value for $${part.variable} (startBlock(), or an earlier line of the block, sets one)`);
  }
  return text;
}

/** A hedge word as the test passes it: /tmp/ into the block's folder, a made-up id as a real one. */
async function argument(state: BlockState, word: string) {
  let text = (await expand(state, word)).replace(/^\/tmp\//, `${state.cwd}/`);
  // Only an id written in the doc is made up (`$ID` has a real one already).
  const written = partsOf(word)
    .map((part) => ('literal' in part ? part.literal : ''))
    .join('');
  if (MADE_UP_HEDGE_ID.test(written)) text = text.replace(MADE_UP_HEDGE_ID, await newest(state, 'hedges'));
  if (/^a_[0-9a-z]{6,}$/.test(written)) text = await newest(state, 'journal');
  return text;
}

/** `NAME=value` words, expanded into `into` (returned). */
async function assign(state: BlockState, words: string[], into: Env) {
  for (const word of words) {
    const [, name] = ASSIGNMENT.exec(word)!;
    into[name] = (await expand(state, word)).slice(name.length + 1);
  }
  return into;
}

/** Runs one doc line's pipelines in order; returns the last hedge run in the foreground. */
async function runLine(state: BlockState, example: Example) {
  let last;
  let echoStatus = false;
  for (const pipeline of example.shell.pipelines) {
    const at = pipeline.stages.findIndex(launcher);
    if (at < 0) {
      const words = pipeline.stages.length === 1 ? pipeline.stages[0].words : [];
      const line = words.join(' ');
      const sourced = /^(?:\.|source) (?:\.\/)?(\S+)$/.exec(line)?.[1];
      if (sourced) {
        const file = state.files.get(sourced);
        if (!file) throw new Error(`${sourced} was written by no earlier line of the block`);
        const set = [...file.stdout.matchAll(/^(export )?([A-Z_][A-Z0-9_]*)=(.*)$/gm)];
        Object.assign(state.variables, Object.fromEntries(set.map(([, , name, value]) => [name, value])));
        // As sh: what a sourced file sets reaches hedge only when exported (`set -a`, or `export` in the file).
        const exported = set.filter(([, exports]) => exports || state.allExport);
        if (exported.length) state.served = Object.fromEntries(exported.map(([, , name, value]) => [name, value]));
      } else if (/^set [-+]a$/.test(line)) state.allExport = line === 'set -a';
      else if (words.length && words.every((word) => ASSIGNMENT.test(word)))
        await assign(state, words, state.variables);
      else if (line === 'echo $?') echoStatus = true;
      // Anything else that is not hedge (echo, jq, set -a, sleep, notify-desk) is dropped.
      continue;
    }
    if (pipeline.stages.slice(at + 1).some(launcher)) throw new Error('two hedges in one pipe');
    if (at > 1) throw new Error(`no rule for ${at} stages before hedge`);
    const { assignments, args: words } = launcher(pipeline.stages[at])!;
    const read = (file: string) => readFileSync(join(state.cwd, file), 'utf8');
    let stdin: string | undefined;
    if (at === 1) {
      const [command, ...rest] = await Promise.all(pipeline.stages[0].words.map((word) => expand(state, word)));
      if (command === 'printf' && rest[0] === '%s' && rest.length === 2) stdin = rest[1];
      else if (command === 'cat' && rest.length === 1) stdin = read(rest[0]);
      else throw new Error(`no rule for "${pipeline.stages[0].words.join(' ')} |" before hedge`);
    }
    let output: string | undefined;
    for (const { op, target } of pipeline.stages[at].redirects) {
      if (op === '<') stdin = read(await expand(state, target!));
      else if (op === '>' || op === '>>') output = target!.replace(/^\.\//, '');
    }
    const options = { cwd: state.cwd, env: env(state, await assign(state, assignments, {})), stdin };
    let args = await Promise.all(words.map((word) => argument(state, word)));
    if (pipeline.then === '&') {
      // The docs put one thing in the background: a simulator whose environment the next lines source.
      if (commandOf(args) !== 'sandbox' || !output) throw new Error('no rule for this in the background');
      const port = args.indexOf('--port');
      if (port >= 0) args[port + 1] = '0';
      const started = await spawnHedge(args, options, UP.sandbox);
      state.files.set(output, started.printed);
      state.background.push(started.stop);
      continue;
    }
    args = withServer(state, args);
    if (args.includes('--watch') && !args.includes('--count')) args.push('--count', '1');
    last = { args, result: await run(args, options) };
    // `a && b` stops at a failure; `a || b` and `a; b` go on (b is never hedge in the docs).
    if (pipeline.then === '&&' && last.result.code !== 0) break;
  }
  return { last, echoStatus };
}

/** What says a server is up: `sandbox serve`'s last banner line (its settings printed before it), a keeper's first cycle. */
const UP = {
  sandbox: (stdout: string, stderr: string) => /Press Ctrl-C to stop/.test(stderr) && /^HEDGE_API_KEY=/m.test(stdout),
  keep: (stdout: string) => /"event":\s*"cycle"/.test(stdout),
};

/** What an MCP client says first (the test is `hedge mcp`'s client for that, then goes). */
const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"documented-examples","version":"1"}}}\n';

// ---------------------------------------------------------------------------------------------
// Comparing what a doc shows with what was printed.
// ---------------------------------------------------------------------------------------------
/**
 * A line's shape: what stays the same from run to run. Ids and hashes go; a number keeps its
 * format (thousands separators, decimals: `10,000.00` is `#,#.##`, never `#.##`) but not its digits
 * or sign (a P&L may be either).
 */
function shape(line: string) {
  return line
    .replace(/\bhdg_[0-9a-z]*…?/g, 'hdg_…')
    .replace(/\ba_[0-9a-z]{6,}\b/g, 'a_…')
    .replace(/\b0x[0-9a-f]+\b/g, '0x…')
    .replace(
      /[+-]?(\d[\d,]*)(\.\d+)?/g,
      (_, whole: string, fraction = '') => whole.replace(/\d+/g, '#') + fraction.replace(/\d/g, '#'),
    )
    .replace(/─+/g, '─')
    .replace(/\s+/g, ' ')
    .trim();
}

const RULE = /^[\s─]*─[\s─]*$/;

function table(lines: string[]) {
  const rule = lines.findIndex((line, index) => index > 0 && RULE.test(line));
  if (rule < 0) return;
  const rows: string[] = [];
  for (const line of lines.slice(rule + 1)) {
    if (!line.trim()) break;
    rows.push(shape(line));
  }
  return { at: rule - 1, columns: lines[rule - 1].trim().split(/\s{2,}/), rows };
}

/** A card's labels: the first cell of each `│ label │ value │` line that has one. */
const labels = (lines: string[]) => lines.flatMap((line) => /^│\s*([^\s│].*?)\s*│/.exec(line)?.slice(1) ?? []);

/** Whether `shown` appears in `all`, in that order (others between allowed). */
function inOrder(shown: string[], all: string[]) {
  let found = 0;
  for (const item of all) if (item === shown[found]) found++;
  return found === shown.length;
}

/**
 * What differs between the output a doc shows and what was printed (stdout, or stderr without the
 * `--demo` banner); [] when the shapes agree.
 */
function compare(doc: string[], stdout: string, stderr: string) {
  const printed = (stdout.trim() ? stdout : stderr.replace(/^DEMO — .*\n?/gm, ''))
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
    .split('\n');
  const head = printed.slice(0, 5).join('\n');
  const first = (lines: string[]) => shape(lines.find((line) => line.trim()) ?? '');
  if (/^\s*[[{]/.test(doc[0])) {
    // Every key of a JSON document, or of NDJSON's lines.
    const have = new Set<string>();
    const read = (json: string) => JSON.parse(json, (key, value: unknown) => (have.add(key), value));
    try {
      try {
        read(printed.join('\n'));
      } catch {
        printed.filter((line) => line.trim()).forEach(read);
      }
    } catch {
      return [`the doc shows JSON, the command printed:\n${head}`];
    }
    const missing = new Set([...doc.join('\n').matchAll(/"([^"\\]*)"\s*:/g)].map((match) => match[1]));
    for (const key of have) missing.delete(key);
    return missing.size ? [`keys the doc shows that the output lacks: ${[...missing].join(', ')}`] : [];
  }
  const problems = [];
  const docTable = table(doc);
  const outTable = table(printed);
  if (docTable && !outTable)
    return [`the doc shows a table (${docTable.columns.join(', ')}); the command printed:\n${head}`];
  if (docTable && outTable) {
    if (!inOrder(docTable.columns, outTable.columns))
      problems.push(`columns shown: ${docTable.columns.join(' | ')}; printed: ${outTable.columns.join(' | ')}`);
    else if (docTable.columns.length === outTable.columns.length)
      for (const row of docTable.rows)
        if (!outTable.rows.includes(row))
          problems.push(`a row shown as "${row}" is none of those printed:\n${outTable.rows.join('\n')}`);
  }
  // A table's first line is compared where the doc shows one above its header; a card's labels where it is no table.
  if (docTable?.at !== 0 && first(doc) !== first(printed))
    problems.push(`first line shown: "${first(doc)}"; printed: "${first(printed)}"`);
  if (!docTable && !inOrder(labels(doc), labels(printed)))
    problems.push(`card labels shown: ${labels(doc).join(' | ')}; printed: ${labels(printed).join(' | ')}`);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// What a doc line's output assumes that the block cannot make by itself.
// ---------------------------------------------------------------------------------------------
/**
 * keep.md's `hedge keep status` shows the card of a running keeper: one holds the sample target in
 * the background until it has written its heartbeat. Returns its stop().
 */
const needsKeeper = (example: Example) =>
  example.doc === 'docs/keep.md' && example.text === 'hedge keep status' && example.shown.length;
async function startKeeper(state: BlockState) {
  // Its NDJSON says when its first cycle is done; the heartbeat that records it is written a moment
  // later (the one written at start already says "running"), so the wait is for a counted cycle: the
  // status is asked again each time the heartbeat file it names is written.
  const keeper = await spawnHedge(withServer(state, ['keep', 'docs/examples/target.csv']), asScript(state), UP.keep);
  const status = () => run(withServer(state, ['keep', 'status', '--json']), asScript(state));
  const seenIn = (asked: { code: number | null; stdout: string }) =>
    asked.code === 0 ? JSON.parse(asked.stdout) : undefined;
  const contents = (file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  };
  let asked = await status();
  try {
    const file = seenIn(asked)?.heartbeat_file;
    if (typeof file !== 'string') throw new Error('the status names no heartbeat file');
    for (;;) {
      const before = contents(file);
      asked = await status();
      const seen = seenIn(asked);
      if (seen?.state === 'running' && seen.heartbeat?.cycles >= 1) return keeper.stop;
      await until(() => contents(file) !== before, `the keeper's heartbeat ${file} written again`);
    }
  } catch (error) {
    await keeper.stop();
    throw new Error(`the keeper did not come up (${(error as Error).message}):\n${asked.stdout}\n${asked.stderr}`, {
      cause: error,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// A block, run.
// ---------------------------------------------------------------------------------------------
/** How long a block is likely to take (its lines, and the commands that write most), to start the long ones first (the run ends with its longest block). */
function weight(block: Block) {
  const writes = /\b(?:open|add|reduce|close|roll|apply|keep|api|resume)\b/g;
  return block.lines.reduce((sum, line) => sum + 0.2 + (line.hedge ? (line.text.match(writes)?.length ?? 0) : 0), 0);
}

/** The blocks with a line to run, the longest first. */
const RUNNABLE = BLOCKS.filter((block) => examplesIn(block).some(isRun)).sort((a, b) => weight(b) - weight(a));

/** A block's state: its folder, copied from the book it starts from; remove() deletes it. */
function startBlock(block: Block) {
  const folder = tempDir('hedge-docs-block-');
  const state = {
    block,
    cwd: join(folder.path, 'work'),
    config: join(folder.path, 'config'),
    /** What a sourced `hedge sandbox serve` printed and exported: the block then runs against it, not the demo. */
    served: undefined as Env | undefined,
    /** `set -a` in effect: what a sourced file sets is exported. */
    allExport: false,
    /**
     * In a block that starts a sandbox, the saved profiles point at a server of their own: a line
     * that reaches it instead of the sandbox (an environment sourced but not exported) is a failure.
     */
    savedProfiles: undefined as Simulator | undefined,
    // What the docs' scripts read: the key and address of this file's simulator (README's scripted
    // login), and the deal id README's script keeps in `$DEAL` (any will do: it opens a new hedge).
    variables: { HEDGE_KEY: server!.apiKey, HEDGE_URL: server!.baseUrl, DEAL: 'DEAL-9' } as Env,
    /** What a background line's stdout went to (`> sandbox.env`), for `. ./sandbox.env`. */
    files: new Map<string, { stdout: string }>(),
    background: [] as Array<() => Promise<number | null>>,
    remove: folder.remove,
  };
  const runs = (what: (args: string[]) => boolean) =>
    block.lines.some((line) =>
      line.shell?.pipelines.some((pipeline) => pipeline.stages.some((stage) => what(launcher(stage)?.args ?? []))),
    );
  // A block that opens a hedge starts from a flat book; one of `acct` from the books the docs assume, unless it makes
  // its own (entities declared, a designation, rates imported from a file).
  const acctWords = (args: string[]) => args.slice(args.indexOf('acct') + 1);
  const opens = runs((args) => commandOf(args) === 'open');
  const accounts = runs((args) => commandOf(args) === 'acct');
  const ownBooks = runs((args) => {
    const [sub, file] = acctWords(args);
    return (
      commandOf(args) === 'acct' &&
      (sub === 'designate' ||
        (sub === 'entities' && file !== undefined && !file.startsWith('-')) ||
        (sub === 'rates' && file !== undefined && !file.startsWith('-') && !args.includes('--correct')))
    );
  });
  cpSync(opens ? flat : accounts && !ownBooks ? accounted : booked, state.config, { recursive: true });
  cpSync(join(ROOT, 'docs', 'examples'), join(state.cwd, 'docs', 'examples'), { recursive: true });
  return state;
}

/** Stops what a block started in the background: a simulator stopped by SIGTERM says so and exits 0. */
async function stopBackground(state: BlockState) {
  const codes = await Promise.all(state.background.splice(0).map((stop) => stop()));
  return codes
    .filter((code) => code !== 0)
    .map((code) => `the simulator started in the background stopped with exit ${code}`);
}

describe('the documented examples', () => {
  it('finds every hedge line of the docs, and can read each; skips only what matches a doc line, each with its reason', () => {
    expect(UNREADABLE).toEqual([]);
    // A parser that stopped finding lines would pass every check below on nothing.
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(150);
    expect(EXAMPLES.map((example) => example.doc)).toEqual(
      expect.arrayContaining([
        'README.md',
        'docs/commands.md',
        'docs/command-reference.md',
        'docs/exposures.md',
        'docs/output.md',
      ]),
    );
    expect(
      // blocksOf() drops the blank lines after what a line shows: a line shows output or nothing.
      EXAMPLES.filter((example) => example.shown.length).length,
    ).toBeGreaterThanOrEqual(10);
    // SKIPPED holds only what matches a doc line, each with its reason.
    for (const entry of SKIPPED) {
      expect(
        EXAMPLES.some((example) => example.skip === entry),
        `SKIPPED ${entry.match} matches no doc line`,
      ).toBe(true);
      expect(entry.why.length).toBeGreaterThan(20);
    }
    expect(EXAMPLES.some(needsKeeper), 'hedge keep status').toBe(true);
  });

  // Blocks run side by side (most of a block's time is spent waiting for the simulator's fills,
  // not on the CPU), the longest first; a block's lines run in order, a test each, so that each
  // test's bound is one line's run.
  describe.concurrent('each block runs as written', () => {
    for (const block of RUNNABLE) {
      // A block's lines in order, a test per line run: it runs the lines before it that are not
      // hedge but may set what it reads (`. ./sandbox.env`, `key=…`), then its own; the last test
      // also those after it.
      const steps: Array<{ example: Example; before: Example[]; after: Example[] }> = [];
      let others: Example[] = [];
      for (const line of block.lines) {
        if (!line.shell) continue;
        const shelled = line as Example;
        if (!line.hedge) others.push(shelled);
        else if (isRun(line)) {
          steps.push({ example: shelled, before: others, after: [] });
          others = [];
        }
      }
      steps.at(-1)?.after.push(...others);
      const background = block.lines.some((line) => line.shell?.pipelines.some((pipeline) => pipeline.then === '&'));
      describe(`${block.doc}:${block.line}`, () => {
        let state: BlockState;
        beforeAll(async () => {
          state = startBlock(block);
          if (!background) return;
          state.savedProfiles = await startSimulator({ preset: 'plain' });
          for (const profile of ['desk', 'old-desk'])
            ok(await loginWith(state.config, state.savedProfiles, state.savedProfiles.apiKey, ['--profile', profile]));
          state.savedProfiles.sandbox.requestLog.length = 0;
        });
        afterAll(async () => {
          await stopBackground(state);
          await state.savedProfiles?.close();
          state.remove();
        });
        // Each runs its doc line in the block's state; the problems are what differs from what the doc implies.
        for (const { example, before, after } of steps)
          it.sequential(`${example.line}: ${example.text}`, async () => {
            for (const line of before) await runLine(state, line);
            const problems = [];
            let stop;
            try {
              if (needsKeeper(example)) stop = await startKeeper(state);
              const { last, echoStatus } = await runLine(state, example);
              // The exit code the doc implies: its `# exit N`, or under `; echo $?` the code its last line shows (blocksOf() drops trailing blank lines).
              const echoed = echoStatus && /^(\d+)\b/.exec(example.shown.at(-1) ?? '')?.[1];
              const expected = Number(/^exit (\d+)\b/.exec(example.shell.comment)?.[1] ?? echoed ?? 0);
              const shown = example.shown.slice(0, echoStatus ? -1 : undefined);
              if (last && last.result.code !== expected)
                problems.push(
                  `ran hedge ${last.args.join(' ')}: exit ${last.result.code}, the doc implies ${expected}\n  ${last.result.stderr.trim().split('\n').slice(-6).join('\n  ')}`,
                );
              else if (last && shown.some((text) => text.trim()) && example.skip?.compare !== false)
                problems.push(...compare(shown, last.result.stdout, last.result.stderr));
            } finally {
              const code = await stop?.();
              if (stop && code !== 0) problems.push(`the keeper started for it stopped with exit ${code}`);
            }
            for (const line of after) await runLine(state, line);
            const astray = state.savedProfiles?.requests() ?? [];
            if (astray.length)
              problems.push(
                `reached the saved profile, not the sandbox the block started: ${astray.map((entry) => `${entry.method} ${entry.path}`).join(', ')}`,
              );
            expect(problems).toEqual([]);
          });
        if (background)
          it.sequential('stops what it started in the background cleanly', async () => {
            expect(await stopBackground(state)).toEqual([]);
          });
      });
    }
  });

  it('the comparison sees a header or a sign the tool does not print', () => {
    // A table of the output page that was wrong, against what `markets --fields … --format table` printed.
    const table =
      'Market   Capacity buy USD  Carry/day sell\n───────  ────────────────  ──────────────\nUSDTNGN         1,000,000  +0.0252% earn\n';
    const rule = '───────  ──────────────────────────  ───────────────────────';
    const header = 'Market   Capacity buy USD  Carry/day sell';
    // [differences expected, the doc's lines, what was printed (stdout, stderr)].
    const cases: Array<[number, string, string?, string?]> = [
      [
        1,
        `Market   available_capacity_usd.buy  net_rate_daily_pct.sell\n${rule}\nUSDTNGN                1,000,000.00                 -0.0256%`,
      ],
      [1, `${header}\n${rule}\nUSDTNGN         1,000,000  -0.0256%`],
      // Numbers move from run to run; their place, format, unit and words do not.
      [0, `${header}\n${rule}\nUSDTNGN         1,000,000  +0.0256% earn`],
      [1, `${header}\n${rule}\nUSDTNGN      1,000,000.00  +0.0256% earn`],
      // A column left out for width is not a difference; one renamed or moved is.
      [0, `Market   Carry/day sell\n${rule}`],
      [1, `Market   Carry/day sell  Capacity buy USD\n${rule}`],
      // JSON by its keys; anything else by its first line.
      [1, '{ "market": "USDTNGN", "carry": { "total_usd": 1 } }', '{"market": "USDTNGN", "carry": {"total_usdc": 1}}'],
      [
        1,
        'hedge: bad.csv: 3 problems; nothing was read or sent.',
        '',
        'DEMO — local simulator\nhedge: docs/examples/bad-exposures.csv: 3 problems; nothing was read or sent.\n',
      ],
    ];
    expect(
      cases.map(([, shown, stdout = table, stderr = '']) => compare(shown.split('\n'), stdout, stderr).length),
    ).toEqual(cases.map(([count]) => count));
  });

  it("docs/commands.md's `--dialect` values are the simulator's", () => {
    const commands = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');
    const documented = /--dialect ((?:\w+\\?\|)+\w+)/.exec(commands)?.[1]?.split(/\\?\|/);
    expect(documented).toEqual([...SANDBOX_DIALECTS]);
  });

  it('no page of the docs doubles a dash', () => {
    for (const page of ['README.md', 'docs/keep.md', 'docs/commands.md', 'docs/agents.md', 'docs/output.md'])
      expect(readFileSync(join(ROOT, page), 'utf8'), page).not.toMatch(/—\s*—/);
  });
});

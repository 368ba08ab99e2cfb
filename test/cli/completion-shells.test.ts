// The completion scripts at work in real shells (each script's parse and every command path's
// subcommands and long options: completion-sync.test.ts): the bash script the build wrote sourced
// in a real bash and its function called on partial lines — profile names included, from a store
// written by the CLI's own ProfileStore; the zsh script registered by compinit from fpath and its
// function run; fish asked with `complete -C`. `hedge completion SHELL` prints the very files, and
// another shell is a usage error. A shell that is not installed is reported skipped.
import { execFileSync } from 'node:child_process';
import { chownSync, copyFileSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProfileStore } from '../../src/platform/config/profile-store.js';
import { runHedge, tempDir, tempFolders } from '../support/hedge-cli.js';
import { bashComplete, fishComplete, hasShell, scriptFile } from './shell-completion.js';
import { ok } from '../support/cli-runs.js';
import { loginWith } from '../support/config-store.js';
import { MARKET, withSimulator } from '../support/simulator.js';

const NO_FISH = !hasShell('fish');
const store = tempDir('hedge-completion-');
const tempFolder = tempFolders('hedge-completion-');

beforeAll(async () => {
  await new ProfileStore(store.path).update((data) => {
    data.profiles.desk = {
      base_url: 'https://api.example.com/partners/acme/v2',
      api_key: 'hpk_live_CompletionKey000000000001',
    };
    data.profiles['sandbox-2'] = { base_url: 'http://127.0.0.1:4010/partners/sandbox/v2' };
    data.profiles['ops.eu'] = { base_url: 'https://api.example.com/partners/eu/v2' };
    data.current = 'desk';
  });
});
afterAll(() => store.remove());

/** bash or zsh, without startup files, running `program` with `arg` as $1. */
const shell = (name: 'bash' | 'zsh', program: string, arg: string, env: Record<string, string> = {}) =>
  execFileSync(name, [name === 'bash' ? '--norc' : '-f', '-c', program, name, arg], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  });

const complete = (lines: string[], env: Record<string, string> = { HEDGE_CONFIG_DIR: store.path }) =>
  bashComplete(lines, { HOME: store.path, ...env });

it('bash completion (a real bash): completes commands, arguments, option values and profile names; with no store file there are no profile names, and no error; registers itself for the hedge command, and completes --status=VALUE, which bash splits at "="', () => {
  // Each line, and the words offered after it (none: '').
  const cases = Object.entries({
    'hedge qu': 'quote',
    'hedge p': 'price positions profile plan',
    'hedge quote USDTNGN ': 'buy sell',
    'hedge open USDTNGN s': 'sell',
    'hedge quote USDTNGN buy 10k --tenor ': '1 3 7',
    'hedge quote USDTNGN buy 10k -t ': '1 3 7',
    'hedge hedges --status ': 'submitting submitted filled failed closed',
    'hedge hedges --status f': 'filled failed',
    'hedge completion ': 'bash zsh fish',
    'hedge profile use ': 'desk ops.eu sandbox-2',
    'hedge profile remove s': 'sandbox-2',
    'hedge --profile ': 'desk ops.eu sandbox-2',
    'hedge --profile desk quote USDTNGN ': 'buy sell',
    'hedge sandbox serve --fa': '--fail-rate --fault-5xx --fault-429',
    'hedge hedges --w': '--wait --watch',
    'hedge quote USDTNGN buy 10k ': '',
    'hedge --ver': '--verbose --version',
  });
  const results = complete(cases.map(([line]) => line));
  cases.forEach(([line, expected], index) => {
    expect(results[index]?.slice().sort(), line).toEqual(expected.split(' ').filter(Boolean).sort());
  });
  expect(complete(['hedge profile use '], { HEDGE_CONFIG_DIR: tempFolder() })).toEqual([[]]);
  // Without HEDGE_CONFIG_DIR the store is looked up under XDG_CONFIG_HOME, like the CLI does.
  expect(complete(['hedge profile use '], { XDG_CONFIG_HOME: join(store.path, '..', 'nowhere') })).toEqual([[]]);

  // It registers itself for the hedge command, and completes --status=VALUE, which bash splits at "=".
  const program = [
    'source "$1"',
    'complete -p hedge',
    'COMP_WORDS=(hedge hedges --status = fi); COMP_CWORD=4; _hedge; echo "${COMPREPLY[*]}"',
    'COMP_WORDS=(hedge hedges --status =); COMP_CWORD=3; _hedge; echo "${COMPREPLY[*]}"',
  ].join('\n');
  const output = shell('bash', program, scriptFile('bash')).split('\n');
  expect([output[0], output[1]?.split(' ').sort(), output[2]?.split(' ').sort()]).toEqual([
    'complete -F _hedge hedge',
    ['filled'],
    'closed failed filled submitted submitting'.split(' '),
  ]);
});

/** The profile names a shell offers with an absolute XDG_CONFIG_HOME that holds no store, then with a relative one,
 * for a home whose ~/.config/hedge holds the store's profiles. */
function namesWhereHedgeLooks(completeIn: typeof bashComplete) {
  const home = tempFolder();
  mkdirSync(join(home, '.config', 'hedge'), { recursive: true });
  copyFileSync(join(store.path, 'config.json'), join(home, '.config', 'hedge', 'config.json'));
  const names = (XDG_CONFIG_HOME: string) =>
    completeIn(['hedge profile use '], { HOME: home, XDG_CONFIG_HOME })[0]?.slice().sort();
  return [names(join(home, 'elsewhere')), names('.config')];
}
const WHERE_HEDGE_LOOKS =
  'profile names from an absolute XDG_CONFIG_HOME, else ~/.config/hedge (a relative XDG_CONFIG_HOME is ignored, as hedge does)';

it(`bash completion (a real bash): ${WHERE_HEDGE_LOOKS}`, () => {
  expect(namesWhereHedgeLooks(bashComplete)).toEqual([[], ['desk', 'ops.eu', 'sandbox-2']]);
});

it.skipIf(NO_FISH)(`fish completion (a real fish; skipped: fish is not installed): ${WHERE_HEDGE_LOOKS}`, () => {
  expect(namesWhereHedgeLooks(fishComplete)).toEqual([[], ['desk', 'ops.eu', 'sandbox-2']]);
});

// Another shell: exit 2, one line naming the allowed ones (test/reliability/bad-input.test.ts).
it.each(['bash', 'zsh', 'fish'])('hedge completion SHELL: prints dist/completions/hedge.%s exactly', async (shell) => {
  const { stdout, stderr } = ok(await runHedge(`completion ${shell}`));
  expect([stdout, stderr]).toEqual([readFileSync(scriptFile(shell), 'utf8'), '']);
});

it('hedge completion SHELL: --help shows how to install each script (each line making its folder first: test/docs/completion-lines.test.ts runs them)', async () => {
  // An example too wide for the help is continued on the next line (` \`), as a shell reads it.
  const shown = ok(await runHedge('completion --help')).stdout.replace(/ \\\n +/g, ' ');
  for (const part of [
    'mkdir -p ~/.local/share/bash-completion/completions && hedge completion bash > ~/.local/share/bash-completion/completions/hedge',
    'mkdir -p ~/.zfunc && hedge completion zsh > ~/.zfunc/_hedge',
    'mkdir -p ~/.config/fish/completions && hedge completion fish > ~/.config/fish/completions/hedge.fish',
  ])
    expect(shown).toContain(part);
});

describe.skipIf(!hasShell('zsh'))('zsh completion (a real zsh; skipped: zsh is not installed)', () => {
  it('is registered for hedge by compinit when installed as _hedge in fpath', () => {
    const dir = tempFolder();
    writeFileSync(join(dir, '_hedge'), readFileSync(scriptFile('zsh'), 'utf8'));
    const program = 'fpath=("$1" $fpath); autoload -U compinit; compinit -u -D; print -r -- ${_comps[hedge]}';
    expect(shell('zsh', program, dir, { HOME: dir }).trim()).toBe('_hedge');
  });

  it('completes subcommands, options, values and profile names', () => {
    // compadd and _files only work inside zsh's completion widget: here they print what the
    // script's own function hands them.
    const program = [
      'compdef() { :; }',
      'source "$1"',
      'compadd() { [[ $1 == -- ]] && shift; print -r -- "$@" }',
      '_files() { print -r -- FILES }',
      't() { words=("$@"); CURRENT=$#words; _hedge }',
      "t hedge ''",
      "t hedge quote USDTNGN ''",
      "t hedge hedges --status ''",
      "t hedge profile use ''",
      "t hedge profile ''",
      't hedge sandbox serve --fa',
      "t hedge report --html ''",
    ].join('\n');
    const output = shell('zsh', program, scriptFile('zsh'), { HEDGE_CONFIG_DIR: store.path })
      .split('\n')
      .map((line) => line.split(' ').sort().join(' '));
    expect(output[0].split(' ')).toEqual(expect.arrayContaining('markets quote profile journal help'.split(' ')));
    // Options are offered whole (zsh filters them by what was typed): the command's and the global ones.
    expect([output.slice(1, 5), output[5].split(' '), output[6]]).toEqual([
      ['buy sell', 'closed failed filled submitted submitting', 'desk ops.eu sandbox-2', 'list remove reset-wire use'],
      expect.arrayContaining('--fail-rate --fault-5xx --fault-429 --json'.split(' ')),
      'FILES',
    ]);
  });
});

describe.skipIf(NO_FISH)('fish completion (a real fish; skipped: fish is not installed)', () => {
  it('completes commands, arguments, option values and profile names', () => {
    const lines =
      'hedge qu,hedge quote USDTNGN ,hedge quote USDTNGN buy 10k --tenor ,hedge profile use ,hedge completion ,hedge profile ,hedge hedges --w,hedge --profile '.split(
        ',',
      );
    const output = fishComplete(lines, { HOME: store.path, HEDGE_CONFIG_DIR: store.path }).map((words) =>
      words.sort().join(' '),
    );
    expect(output).toEqual(
      'quote,buy sell,1 3 7,desk ops.eu sandbox-2,bash fish zsh,list remove reset-wire use,--wait --watch,desk ops.eu sandbox-2'.split(
        ',',
      ),
    );
  });
});

/** What zsh's `_hedge` hands compadd after each line (words split at spaces; a trailing space: an empty current word). */
function zshComplete(lines: string[], env: Record<string, string>) {
  const program = [
    'compdef() { :; }',
    'source "$1"; shift',
    'compadd() { [[ $1 == -- ]] && shift; print -r -- "$*" }',
    '_files() { print -r -- FILES }',
    'for line in "$@"; do words=(${=line}); [[ $line == *" " ]] && words+=(""); CURRENT=$#words; out=$(_hedge); print -r -- "${out:-}"; done',
  ].join('\n');
  return execFileSync('zsh', ['-f', '-c', program, 'zsh', scriptFile('zsh'), ...lines], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
  })
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => line.split(' ').filter(Boolean));
}

const SHELLS = [
  ['bash', bashComplete, false],
  ['zsh', zshComplete, !hasShell('zsh')],
  ['fish', fishComplete, NO_FISH],
] as const;

describe.each(SHELLS)('%s completion of markets and hedge ids', (name, completeIn, missing) => {
  it.skipIf(missing)(
    `${name} (a real one; skipped when not installed): markets and hedge ids complete from what hedge last read, kept in its state folder: hedge ids of the account in use only (the profile typed or current, the demo); no request at Tab; nothing from a file that is not this user's or is a link, nor before hedge read any`,
    () =>
      withSimulator({}, async (simulator) => {
        const env = { HOME: simulator.configDir, HEDGE_CONFIG_DIR: simulator.configDir };
        const lines = ['hedge quote ', 'hedge --demo open U', 'hedge hedges ', 'hedge hedges hdg_', 'hedge roll '];
        const sorted = (offered: string[][]) => offered.map((words) => [...words].sort());
        // Nothing read yet: nothing offered, and no error.
        expect(sorted(completeIn(lines, env))).toEqual([[], [], [], [], []]);
        const seeded = [simulator.seedOpen('buy', 1000), simulator.seedOpen('sell', 2000)];
        // Read through the saved profile `desk` (current): its ids; through the environment (a sandbox's): none kept.
        ok(await loginWith(simulator.configDir, simulator, simulator.apiKey, ['--profile', 'desk']));
        ok(await runHedge('markets', { configDir: simulator.configDir }));
        ok(await runHedge('hedges', { configDir: simulator.configDir }));
        const ids = seeded.map((hedge) => hedge.id).sort();
        const asked = simulator.requests().length;
        expect(sorted(completeIn(lines, env))).toEqual([[MARKET], [MARKET], ids, ids, [MARKET]]);
        expect(simulator.requests()).toHaveLength(asked);
        // Another account: the demo's, another profile's, the environment's — none of desk's ids.
        const others = ['hedge --demo hedges ', 'hedge --profile old-desk hedges ', 'hedge --profile desk hedges '];
        expect(sorted(completeIn(others, env))).toEqual([[], [], ids]);
        expect(sorted(completeIn(['hedge hedges '], { ...env, HEDGE_API_KEY: simulator.apiKey }))).toEqual([[]]);
        ok(await simulator.hedge('hedges'));
        expect(sorted(completeIn(['hedge hedges '], env))).toEqual([ids]);
        // Another user's file, or a link to one of this user's: nothing is offered from it.
        const file = join(simulator.configDir, 'completion-words.json');
        const words = readFileSync(file, 'utf8');
        const elsewhere = join(tempFolder(), 'words.json');
        writeFileSync(elsewhere, words);
        rmSync(file);
        symlinkSync(elsewhere, file);
        expect(sorted(completeIn(lines, env))).toEqual([[], [], [], [], []]);
        if (process.getuid?.() === 0) {
          rmSync(file);
          writeFileSync(file, words);
          chownSync(file, 65534, 65534);
          expect(sorted(completeIn(lines, env))).toEqual([[], [], [], [], []]);
        }
      }),
  );
});

// The documentation holds together: README.md is a front door of at most 200 lines whose set-up
// commands are exactly what CI runs (.ci/run); every relative link in README.md and docs/ points at
// a file that exists and, with a #fragment, at a heading of it; every install script `npm ci` would
// run is allowed in package.json (no warning); every top-level command is
// documented in docs/commands.md; docs/exit-codes.md is the table of src/platform/terminal/exit-codes.ts; and
// docs/command-reference.md is what the specs generate.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { COMMANDS } from '../../src/cli/manifest.js';
import { EXIT_CODES } from '../../src/platform/terminal/exit-codes.js';
import { commandReference } from '../../scripts/command-reference-text.mjs';
import { manPageInput } from '../../src/cli/reference.js';
import semver from 'semver';
import { ROOT } from '../support/hedge-cli.js';
import { run } from '../build/run-process.js';

const DOCS = join(ROOT, 'docs');
const PAGES = readdirSync(DOCS).filter((name) => name.endsWith('.md'));
const FILES = [join(ROOT, 'README.md'), ...PAGES.map((name) => join(DOCS, name))];
const read = (path: string) => readFileSync(path, 'utf8');

/** The text outside fenced code blocks. */
const outsideCode = (markdown: string) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2. */
function anchorsOf(markdown: string) {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of outsideCode(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = heading
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function links(path: string) {
  const found: Array<{ target: string; line: number }> = [];
  // Outside code, inline code included: there a link is a link.
  outsideCode(read(path))
    .replace(/`[^`\n]*`/g, '')
    .split('\n')
    .forEach((text, index) => {
      for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
        found.push({ target: match[1], line: index + 1 });
    });
  return found;
}

describe('README.md', () => {
  const readme = read(join(ROOT, 'README.md'));

  it('is a front door of at most 200 lines, its set-up the two commands .ci/run runs, in the same order', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const setUp = /^## Set-up\n[\s\S]*?^```sh\n([\s\S]*?)^```/m.exec(readme)?.[1];
    expect(setUp).toBeDefined();
    const commands = (text: string) =>
      text
        .split('\n')
        .map((line) => line.replace(/\s+#.*$/, '').trim())
        .filter((line) => line !== '' && !line.startsWith('#'));
    const ci = commands(read(join(ROOT, '.ci', 'run'))).filter((line) => !/^(set |cd )/.test(line));
    expect(commands(setUp!)).toEqual(ci);
    expect(ci).toEqual(['npm ci && npm run build', 'npm test']);
  });

  it('names the Node version every locked package supports, as `engines` does, so `npm ci` on it warns of no engine', () => {
    const manifest = JSON.parse(read(join(ROOT, 'package.json')));
    const floor = /^>=(\d+\.\d+)\.\d+$/.exec(manifest.engines.node)?.[1];
    expect(readme).toContain(`Node ${floor} or newer`);
    const unmet = Object.entries<any>(JSON.parse(read(join(ROOT, 'package-lock.json'))).packages)
      .filter(([, entry]) => !entry.optional && entry.engines?.node)
      .filter(([, entry]) => !semver.satisfies(semver.minVersion(manifest.engines.node)!, entry.engines.node))
      .map(([name, entry]) => `${name} needs node ${entry.engines.node}`);
    expect(unmet).toEqual([]);
  });

  it("allows every locked package's install script in package.json's allowScripts, so `npm ci` warns of none", () => {
    const { allowScripts = {} } = JSON.parse(read(join(ROOT, 'package.json')));
    const allowed = (name: string, version: string) =>
      allowScripts[name] === true || allowScripts[`${name}@${version}`] === true;
    const uncovered = Object.entries<any>(JSON.parse(read(join(ROOT, 'package-lock.json'))).packages)
      .filter(([, entry]) => entry.hasInstallScript)
      .map(([path, entry]) => [path.replace(/^.*node_modules\//, ''), entry.version] as const)
      .filter(([name, version]) => !allowed(name, version))
      .map(([name, version]) => `${name}@${version}`);
    expect(uncovered).toEqual([]);
  });

  it('leaves the tarball of its `npm pack` out of git', async () => {
    const ignored = await run('git', ['check-ignore', '--no-index', 'hedge-0.1.0.tgz'], { cwd: ROOT });
    expect(ignored.stdout.trim()).toBe('hedge-0.1.0.tgz');
  });

  it("spells a command the way that works after the set-up, at the binary's own cost: `./bin/hedge.js`, never a bare `hedge` at a prompt nor `npx hedge`", () => {
    const blocks = [...readme.matchAll(/^```(sh|console)\n([\s\S]*?)^```/gm)].map((match) => match[2]);
    const lines = blocks.flatMap((block) => block.split('\n')).map((line) => line.replace(/\s+#.*$/, ''));
    const bare = lines.filter((line) => /^(\$ )?hedge\b/.test(line) || /[|;&]\s*hedge\b/.test(line));
    // The tarball install line names `hedge` only in its comment (after installing, it is on PATH).
    expect(bare).toEqual([]);
    const runs = lines.filter((line) => /(^|[\s|;&$])(\.\/bin\/hedge\.js|npx hedge)\b/.test(line));
    expect(runs.length).toBeGreaterThan(10);
    expect(runs.filter((line) => !line.includes('./bin/hedge.js'))).toEqual([]);
    // npx starts npm before hedge: no command block in README or docs/ types it, and
    // no page tells a checkout to use it.
    const npx = FILES.flatMap((path) => {
      const text = read(path);
      const typed = [...text.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)]
        .flatMap((match) => match[1].split('\n'))
        .filter((line) => /^(\$ )?npx hedge\b|[|;&]\s*npx hedge\b/.test(line));
      const told = text.split('\n').filter((line) => /in a checkout, (type )?`npx hedge/.test(line));
      return [...typed, ...told].map((line) => `${relative(ROOT, path)}: ${line}`);
    });
    expect(npx).toEqual([]);
  });
});

describe('links in README.md and docs/', () => {
  it.each(FILES.map((path) => [relative(ROOT, path), path]))(
    '%s: every relative link resolves to a file, and a #fragment to a heading',
    (_name, path) => {
      const broken: string[] = [];
      for (const { target, line } of links(path)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [file, fragment] = target.split('#');
        const destination = file === '' ? path : resolve(dirname(path), decodeURIComponent(file));
        let problem;
        if (!existsSync(destination)) problem = 'no such file';
        else if (!fragment) continue;
        else if (statSync(destination).isDirectory() || !destination.endsWith('.md'))
          problem = 'a fragment into something that is not a Markdown file';
        else if (!anchorsOf(read(destination)).has(fragment)) problem = `no heading #${fragment} there`;
        if (problem) broken.push(`line ${line}: ${target} (${problem})`);
      }
      expect(broken).toEqual([]);
    },
  );

  it('the anchors follow GitHub: punctuation dropped, spaces to dashes, repeats numbered', () => {
    expect([...anchorsOf('# Watching the book live: `--watch`\n## Sign convention\n## Sign convention\n')]).toEqual([
      'watching-the-book-live---watch',
      'sign-convention',
      'sign-convention-1',
    ]);
  });

  it('README.md links every file of docs/', () => {
    const linked = new Set(links(join(ROOT, 'README.md')).map(({ target }) => target.split('#')[0]));
    const missing = PAGES.filter((name) => !linked.has(`docs/${name}`));
    expect(missing).toEqual([]);
  });
});

it('docs/commands.md: documents every top-level command', () => {
  const text = read(join(DOCS, 'commands.md'));
  const missing = COMMANDS.map((spec) => spec.name).filter((name) => !text.includes(`hedge ${name}`));
  expect(missing).toEqual([]);
});

it('docs/exit-codes.md: holds the table of src/platform/terminal/exit-codes.ts, row for row', () => {
  const table = [
    '| code | name | meaning |',
    '|---:|---|---|',
    ...EXIT_CODES.map(({ code, name, meaning }) => `| ${code} | \`${name}\` | ${meaning.replace(/\|/g, '\\|')} |`),
  ].join('\n');
  const text = read(join(DOCS, 'exit-codes.md'));
  const block = /<!-- exit-codes:start -->\n([\s\S]*?)\n<!-- exit-codes:end -->/.exec(text)?.[1];
  // On a difference, the expected table is the one to paste between the markers.
  expect(block).toBe(table);
});

it('docs/command-reference.md: is generated from the command specs (after a change to a spec: npm run build && node scripts/command-reference.mjs)', () => {
  const reference = commandReference(manPageInput());
  for (const spec of COMMANDS) expect(reference).toContain(`### hedge ${spec.name}`);
  expect(read(join(DOCS, 'command-reference.md'))).toBe(reference);
});

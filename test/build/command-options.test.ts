// Each command says what it uses (gh's per-command options): its run takes its module's `Options`, a
// record of the context's services it touches, never the whole CommandContext. A grep-level check.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const CMD = join(import.meta.dirname, '..', '..', 'src', 'cli', 'cmd');

/** What is wrong with a command module's text: a run that takes the whole context, or none that names its Options. */
function problems(text: string) {
  const runs = [...text.matchAll(/\brun\((\w+)(?::\s*(\w+))?/g)];
  if (runs.length === 0) return [];
  const said = [];
  if (!/^export type Options = /m.test(text)) said.push('no `export type Options`');
  for (const [, , type] of runs) if (type !== 'Options') said.push(`a run takes ${type ?? 'an untyped context'}`);
  return said;
}

const modules = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? modules(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

it("commands say what they use: every command's run takes its own Options, never the whole context; the check sees a run that does (it can fail)", () => {
  const found = Object.fromEntries(
    modules(CMD)
      .map((file) => [relative(CMD, file), problems(readFileSync(file, 'utf8'))] as const)
      .filter(([, said]) => said.length > 0),
  );
  expect(found).toEqual({});
  expect(problems('export async function run(ctx: CommandContext, input: In<"X">) {}')).toEqual([
    'no `export type Options`',
    'a run takes CommandContext',
  ]);
  expect(problems('async run(ctx, input) {}')).toContain('a run takes an untyped context');
});

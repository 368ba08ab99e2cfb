// hedge doctor: exit 0 only when everything a write needs works; otherwise the class of the first failed check a
// write needs (4 key, 5 network, server or clock, 14 an unreadable answer, 2 a setting; a config store or journal that
// cannot be used, the code a write would end with). It sends no write.
import { type CommandContext, describeError, exitCodeNamed, plural } from '../command-input.js';
import { wrapWords } from '../../../platform/terminal/width.js';
import { fieldTable } from '../../../platform/fields/fields.js';
import { safeText } from '../../../core/security/safe-text.js';
import type { DoctorPorts } from '../../../features/setup/doctor.js';

/** What this command uses of its context. */
export type Options = DoctorPorts & Pick<CommandContext, 'output'>;

export async function run(ctx: Options) {
  const checks = await import('../../../features/setup/doctor.js');
  const report = await checks.runDoctor(ctx);
  const { output } = ctx;
  const first = report.failed;
  // A failed check's class is the exit code's name (docs/exit-codes.md): auth 4, network 5, unreadable 14, usage 2.
  const exitCode = !first ? 0 : first.failure ? exitCodeNamed(first.failure) : describeError(first.error).exitCode;
  // One row per check: the JSON's checks, and the plain formats' rows. A check's error says its detail and, unless
  // the check names one, its next step.
  const rows = report.checks.map((check) => {
    const described = check.error === undefined ? undefined : describeError(check.error);
    return {
      check: check.id,
      status: check.status,
      title: check.title,
      detail: described?.message ?? check.detail,
      next: check.next ?? described?.hint ?? null,
      for_writes: check.forWrites,
    };
  });
  const c = output.chalk;
  // A person reads each check as a line: its mark, its title and what it found, then what to do.
  const people = () => {
    const width = Math.max(...rows.map((check) => check.title.length));
    const lines = [c.bold('hedge doctor')];
    for (const check of rows) {
      const mark = { ok: c.green('✓'), warn: c.yellow('!'), fail: c.red('✗'), skip: c.dim('–'), info: c.dim('·') };
      const head = `${mark[check.status]} ${check.title.padEnd(width)}  `;
      // A detail may quote the server or a file (a refusal's words): one line, its colour codes and newlines escaped.
      lines.push(wrapWords(`${head}${safeText(check.detail)}`, output.columns, { hangingIndent: width + 4 }));
      if (check.next)
        lines.push(wrapWords(`${' '.repeat(width + 4)}→ ${check.next}`, output.columns, { hangingIndent: width + 6 }));
    }
    return lines.join('\n');
  };
  await output.list(
    rows,
    fieldTable(`
      check       check       text
      status      status      text
      title       title       text
      detail      detail      text
      next        next        text
      for_writes  for_writes  text`),
    { empty: 'No checks.', json: { ready: report.ready, exit_code: exitCode, checks: rows }, people },
  );
  const failed = rows.filter((check) => check.status === 'fail');
  const sentence = report.ready
    ? failed.length
      ? `Ready for writes; ${plural(failed.length, 'other check')} failed (see above).`
      : 'Ready: everything a write needs works.'
    : // A check is named by what it checks ("Key accepted"): said as the check that failed, never as a statement.
      `Not ready: a write would fail (✗ ${failed
        .filter((check) => check.for_writes)
        .map((check) => check.title)
        .join(', ✗ ')}). Fix the first ✗, then run \`${ctx.hedgeCommand('doctor')}\` again.`;
  output.note(report.ready ? c.green(sentence) : c.red(sentence));
  return exitCode;
}

// argv parsed as dist/cli.js parses it, with the typed command's branch first (as it runs) or with
// the whole tree only (`--whole`): the pair that prices that branch.
//   node bench/parse.mjs [--whole] -- <hedge args>
const whole = process.argv[2] === '--whole';
const args = process.argv.slice(process.argv.indexOf('--') + 1);
const { parseCommandLine } = await import(new URL('../dist/cli.js', import.meta.url).href);
const io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, stdoutIsTTY: false };
const parsed = await parseCommandLine(args, { ...io, stderrIsTTY: false, stdinIsTTY: false }, 80, whole);
if (!('invocation' in parsed)) process.exitCode = 1;

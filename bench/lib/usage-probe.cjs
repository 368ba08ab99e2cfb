// Preloaded with --require into every measured process, on both sides of every ratio: as the
// process exits it writes its own resource usage to BENCH_USAGE_FILE. CPU = user + system time of
// the whole process (every thread: V8's background compilers and GC included) from getrusage, so
// time spent waiting (the network, a busy machine's run queue) does not count. One tiny CommonJS
// file at start-up, the same on both sides.
//
// Peak memory is the process's own high-water mark (VmHWM) where Linux gives it: getrusage's
// maxRSS keeps, across exec, the size the parent had when it forked the child, so a big parent
// (the bench, after building the single executable) showed as the peak of every child.
'use strict';
process.on('exit', () => {
  const usage = process.resourceUsage();
  let maxRssKiB = usage.maxRSS;
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'));
    if (hwm) maxRssKiB = Number(hwm[1]);
  } catch {
    // Not Linux: getrusage's figure.
  }
  require('node:fs').writeFileSync(
    process.env.BENCH_USAGE_FILE,
    JSON.stringify({ userMs: usage.userCPUTime / 1000, systemMs: usage.systemCPUTime / 1000, maxRssKiB }),
  );
});

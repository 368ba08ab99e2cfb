// Preloaded with --require into every measured process, on both sides of every ratio: as the
// process exits it writes its own resource usage to BENCH_USAGE_FILE. CPU = user + system time of
// the whole process (every thread: V8's background compilers and GC included) from getrusage, so
// time spent waiting (the network, a busy machine's run queue) does not count. One tiny CommonJS
// file at start-up, the same on both sides.
'use strict';
process.on('exit', () => {
  const usage = process.resourceUsage();
  require('node:fs').writeFileSync(
    process.env.BENCH_USAGE_FILE,
    JSON.stringify({ userMs: usage.userCPUTime / 1000, systemMs: usage.systemCPUTime / 1000, maxRssKiB: usage.maxRSS }),
  );
});

// Preloaded with --require into a measured process: writes its own peak resident set size (KiB,
// from getrusage) to BENCH_RSS_FILE as it exits. Costs one tiny CommonJS file at start-up.
'use strict';
process.on('exit', () => {
  require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS));
});

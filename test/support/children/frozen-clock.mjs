// Preloaded into the spawned CLI by the read-command snapshot tests (NODE_OPTIONS=--import):
// pins Date.now() to the sandbox's frozen time, so "in 2d 23h" and "(1h 0m ago)" in the tables
// are the same on every run; nothing else is changed. A run that goes in-process is given the
// same time as main()'s `now` instead (hedge-cli.ts).
const pinned = Number(process.env.READ_E2E_NOW_MS);
if (Number.isFinite(pinned)) Date.now = () => pinned;

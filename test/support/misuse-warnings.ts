// Warnings that name a misuse of a library or of the process, in this worker or in a hedge process a test ran: two
// statements at once on one PostgreSQL client (node-postgres turns it into an error in its next major version), and
// signal listeners piling up (added per command and never removed). Each fails the file it showed in (per-file.ts).

const MISUSE = [
  /DeprecationWarning: Calling client\.query\(\) when the client is already executing a query/,
  /MaxListenersExceededWarning/,
];

// Held by the worker, not this module: a worker runs file after file, and may load this module afresh for each.
const held = globalThis as { misuseSeen?: string[]; misuseListened?: boolean };
const seen = (held.misuseSeen ??= []);

/** Notes the misuse warnings in a process's stderr. */
export function noteMisuse(text: string) {
  for (const line of text.split('\n')) if (MISUSE.some((pattern) => pattern.test(line))) seen.push(line.trim());
}

/** This worker's own warnings, noted as they are emitted (one listener a worker). */
export function listenForMisuse() {
  if (held.misuseListened) return;
  held.misuseListened = true;
  process.on('warning', (warning) => noteMisuse(`${warning.name}: ${warning.message}`));
}

/** The misuse warnings noted since the last call. */
export function takeMisuse() {
  return seen.splice(0);
}

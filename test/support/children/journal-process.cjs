// Another process with a journal open — the local file or the team's PostgreSQL store — for the
// backend conformance suite (test/journal/conformance.test.ts) and the team store's own tests
// (test/journal/postgres-store.test.ts). It opens the backend it is given
// (from test/support/children/journal-backends.ts, bundled by the test with esbuild, path given) and obeys
// one JSON command per line on stdin, answering one JSON line each on stdout. Killing it
// (SIGKILL) is how a test leaves a stale hold behind.
// Argument: JSON { bundle, backend: 'file' | 'postgres', dir, url?, fallbackDir }.
'use strict';

const options = JSON.parse(process.argv[2]);
const { openJournal, openPostgresJournal } = require(options.bundle);
const readline = require('node:readline');

const journal =
  options.backend === 'postgres'
    ? openPostgresJournal({
        url: options.url,
        shown: 'the test store',
        source: 'the test',
        fallbackDir: options.fallbackDir,
      })
    : openJournal({ dir: options.dir });
const holds = new Map();

async function obey(command) {
  switch (command.do) {
    case 'begin': {
      const entry = await journal.begin(command.fields);
      return { id: entry.id, entry };
    }
    case 'update':
      return { entry: await journal.update(command.id, command.patch) };
    case 'hold':
    case 'lock': {
      const result =
        command.do === 'hold'
          ? await journal.hold(command.id)
          : await journal.lock(command.scope, { waitMs: command.waitMs ?? 0 });
      if (result.held) holds.set(command.name ?? command.id ?? command.scope, result.hold);
      return result.held ? { held: true } : { held: false, holder: result.holder };
    }
    case 'release':
      await holds.get(command.name).release();
      holds.delete(command.name);
      return { released: true };
    case 'holderOf':
      return { holder: (await journal.holderOf(command.id)) ?? null };
    case 'pid':
      return { pid: process.pid };
    default:
      throw new Error(`unknown command ${command.do}`);
  }
}

// The other half is test/support/children/peer-process.ts: each answer carries its command's seq.
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const command = JSON.parse(line);
  obey(command).then(
    (answer) => process.stdout.write(`${JSON.stringify({ seq: command.seq, ...answer })}\n`),
    (error) =>
      process.stdout.write(`${JSON.stringify({ seq: command.seq, error: error.message, name: error.name })}\n`),
  );
});
lines.on('close', () => {
  Promise.resolve(journal.close?.()).then(() => process.exit(0));
});

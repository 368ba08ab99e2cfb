// The team-store tests' PostgreSQL: `describeWithPostgres()` gives a suite a server, ready before its
// tests and let go after them; each test takes a database of its own from it (`createDatabase`).
// The server is a view of the run's one cluster (postgres-server.ts's sharedPostgres): a test looks
// at its own database's sessions only, never at another's. Without server binaries the tests say so in one line; they fail under CI=true and are skipped elsewhere
// (a developer's machine without PostgreSQL).
import { POSTGRES_MISSING, sharedPostgres, type PostgresServer } from './postgres-server.js';

export type { PostgresServer } from './postgres-server.js';

/** Skipped without server binaries unless CI=true (then they fail): the reason is said once. */
const SKIP_POSTGRES = POSTGRES_MISSING !== undefined && process.env.CI !== 'true';

/**
 * A suite with a view of the run's one cluster, ready before its tests
 * and let go after them; without server binaries it reports why in one line.
 */
export function describeWithPostgres(name: string, body: (server: () => PostgresServer) => void) {
  if (POSTGRES_MISSING) console.warn(`${name}: ${POSTGRES_MISSING}${SKIP_POSTGRES ? ' Skipped (CI is not set).' : ''}`);
  describe.skipIf(SKIP_POSTGRES)(name, () => {
    let server: PostgresServer | undefined;
    beforeAll(async () => {
      server = await sharedPostgres();
      // The first file to ask starts the run's cluster (initdb, then the server): real work a loaded machine stretches.
    }, 120_000);
    afterAll(async () => {
      await server?.close();
    });
    body(() => {
      if (!server) throw new Error(POSTGRES_MISSING ?? 'the PostgreSQL server did not start');
      return server;
    });
  });
}

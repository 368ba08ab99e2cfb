// The team-store tests' PostgreSQL: `usePostgres()` gives a test file a server, ready before its
// tests and let go after them; each test takes a database of its own from it (`createDatabase`).
// `{ shared: true }`: a view of the run's one cluster (postgres-server.ts's sharedPostgres), for a
// file that neither looks at other databases' sessions nor needs a server of its own. Without
// server binaries the tests say so in one line; they fail under CI=true and are skipped elsewhere
// (a developer's machine without PostgreSQL).
import { POSTGRES_MISSING, sharedPostgres, startPostgres, type PostgresServer } from './postgres-server.js';

export type { PostgresServer } from './postgres-server.js';

interface PostgresUse {
  /** A view of the run's one cluster instead of a server of the file's own (falls back to one outside a run with it). */
  shared?: boolean;
}

/** Skipped without server binaries unless CI=true (then they fail): the reason is said once. */
const SKIP_POSTGRES = POSTGRES_MISSING !== undefined && process.env.CI !== 'true';

/** A server for the suite around the call: ready before its tests, closed after them. */
function usePostgres(options: PostgresUse = {}): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = (options.shared ? await sharedPostgres() : undefined) ?? (await startPostgres());
  });
  afterAll(async () => {
    await server?.close();
  });
  return () => {
    if (!server) throw new Error(POSTGRES_MISSING ?? 'the PostgreSQL server did not start');
    return server;
  };
}

/** A suite with a server (usePostgres); without server binaries it reports why in one line. */
export function describeWithPostgres(
  name: string,
  body: (server: () => PostgresServer) => void,
  options: PostgresUse = {},
) {
  if (POSTGRES_MISSING) console.warn(`${name}: ${POSTGRES_MISSING}${SKIP_POSTGRES ? ' Skipped (CI is not set).' : ''}`);
  describe.skipIf(SKIP_POSTGRES)(name, () => body(usePostgres(options)));
}

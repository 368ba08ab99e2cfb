// The team-store tests' PostgreSQL: `describeWithPostgres` gives a test file one throwaway server
// (test/support/servers/postgres-server.ts), started before its tests and closed after them; each test
// takes a database of its own from it (`createDatabase`). Without server binaries the tests say so
// in one line; they fail under CI=true and are skipped elsewhere (a developer's machine without
// PostgreSQL).
import { afterAll, beforeAll, describe } from 'vitest';
import { POSTGRES_MISSING, startPostgres, type PostgresServer } from './postgres-server.js';

export { findPostgresBin, POSTGRES_MISSING, startPostgres, type PostgresServer } from './postgres-server.js';

/**
 * One server for the test file: started before its tests, closed after them. Without server
 * binaries it reports why in one line: the tests fail under CI=true and are skipped elsewhere.
 */
export function describeWithPostgres(name: string, body: (server: () => PostgresServer) => void): void {
  const skip = POSTGRES_MISSING !== undefined && process.env.CI !== 'true';
  if (POSTGRES_MISSING) console.warn(`${name}: ${POSTGRES_MISSING}${skip ? ' Skipped (CI is not set).' : ''}`);
  describe.skipIf(skip)(name, () => {
    let server: PostgresServer | undefined;
    beforeAll(async () => {
      server = await startPostgres();
    });
    afterAll(async () => {
      await server?.close();
    });
    body(() => {
      if (!server) throw new Error(POSTGRES_MISSING ?? 'the PostgreSQL server did not start');
      return server;
    });
  });
}

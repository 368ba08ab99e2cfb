// What a process hedge starts (a credential helper, a hook) may see of hedge's environment: all of
// it but the secrets. A key handed to hedge in HEDGE_API_KEY, or read from the keyring or a helper,
// must not travel on to a program that never asked for it (it would show in its /proc/PID/environ,
// its crash dumps and its own children).
import { holdsSecret } from './secrets.js';

/** Variables that carry a secret by name, whatever their value looks like. */
const SECRET_VARIABLES = new Set(['HEDGE_API_KEY', 'HEDGE_JOURNAL_URL', 'PGPASSWORD']);

export function childEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_VARIABLES.has(name) || holdsSecret(value)) continue;
    kept[name] = value;
  }
  return kept;
}

// What a process hedge starts (a credential helper, a hook) may see of hedge's environment: all of it but the secrets.
import { holdsSecret } from './secrets.js';

const SECRET_VARIABLES = new Set(['HEDGE_API_KEY', 'HEDGE_JOURNAL_URL', 'PGPASSWORD']);

export function childEnvironment(env: Readonly<Record<string, string | undefined>>) {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || SECRET_VARIABLES.has(name) || holdsSecret(value)) continue;
    // A proxy's address stays (a hook may need it to reach its chat service); its credentials do not.
    if (!PROXY_VARIABLES.has(name.toLowerCase())) kept[name] = value;
    else
      try {
        const url = new URL(value);
        const bare = !url.username && !url.password;
        url.username = url.password = '';
        kept[name] = bare ? value : url.toString();
      } catch {
        // Not a URL we can read: it may still hold a secret, so it is not passed on.
        kept[name] = '';
      }
  }
  return kept;
}

const PROXY_VARIABLES = new Set(['http_proxy', 'https_proxy', 'all_proxy']);

// How a stored profile reads on a screen: LIVE in bold red (real money), test in plain words. The
// rows themselves (redacted keys) are config/profile-view.ts's; this only renders them.
import type { ChalkInstance } from 'chalk';
import type { Environment } from '../../core/security/secrets.js';

/** LIVE in bold red (real money), test in plain words, a dim dash when there is no key. */
export function environmentLabel(environment: Environment | null | undefined, chalk: ChalkInstance) {
  if (environment === 'live') return chalk.bold.red('LIVE');
  if (environment === 'test') return 'test';
  return chalk.dim('—');
}

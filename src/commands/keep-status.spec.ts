// The declaration of `hedge keep status`: its options, tier and examples (the manifest collects it;
// keep-status.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const KEEP_STATUS = declare({
  name: 'status',
  summary: "Show this account's keeper: running, hung or dead, its rows and rolls",
  description:
    "Show the keeper of this account from its heartbeat (any terminal of this user, or any machine with the team store): pid, host, since, last cycle, each row's next action, errors, rolls with their carry and fees. Exits 15 when no keeper is running (dead, hung, stopped or never started)",
  // Reads local state only; started by a person or a monitoring script.
  tier: 'local',
  options: [],
  // `# exit 15`: what each prints and exits with when no keeper runs (a monitor pages on it).
  examples: [
    'hedge keep status   # exit 15 when no keeper runs',
    'hedge keep status --json   # exit 15 when none runs',
    'hedge keep status || notify-desk "the keeper is down"   # exit 15',
  ],
});

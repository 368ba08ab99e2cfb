// The declaration of `hedge doctor`: its arguments, options, tier and examples (the
// manifest collects it; doctor.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const DOCTOR = declare({
  name: 'doctor',
  group: 'setup',
  summary: 'Check key, URL, clock and every read; sends no write',
  description:
    'Check the set-up against the server: key, base URL and TLS, clock, every read, the wire it speaks, rate limits — with next steps; sends no write',
  tier: 'read',
  examples: ['hedge doctor', 'hedge --profile desk doctor --json', 'hedge --demo doctor'],
});

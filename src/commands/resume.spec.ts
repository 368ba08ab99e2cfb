// The declaration of `hedge resume`: its arguments, options, tier and examples (the
// manifest collects it; resume.ts types its input from it). Data only: the front bundles it.
import { declare } from '../runner/command-spec.js';

export const RESUME = declare({
  name: 'resume',
  summary: 'Finish an unresolved action with its own idempotency key',
  description: 'Finish an unresolved action from the journal with its own key (the newest one without an ID)',
  group: 'automation',
  tier: 'write',
  args: [
    {
      name: 'id',
      required: false,
      description: 'a journal id (a_…) or a unique part of one; default: the newest unresolved action',
    },
  ],
  options: [
    {
      flags: '--no-wait',
      key: 'wait',
      kind: 'negatable',
      description: 'return once the server answered, without waiting for the result',
    },
    {
      flags: '--resend-unproven',
      key: 'resendUnproven',
      kind: 'flag',
      description:
        'send it again with its key although its key may be forgotten and nothing proves it did not land (your word: had it landed, it happens twice)',
    },
  ],
  examples: ['hedge resume', 'hedge resume a_mwrrf5p1'],
});

// hedge profile list — every stored profile with its environment, base URL and redacted key; the
// current one marked. --json gives the same rows as an array (never a whole key).
import { profileRows } from '../config/profile-view.js';
import { environmentLabel } from '../config/profile-view.js';
import type { CommandContext } from '../runtime/context.js';
import type { FieldSpec } from '../ui/fields.js';

export async function run(ctx: CommandContext): Promise<void> {
  const store = await ctx.store();
  const rows = profileRows(store.read());
  const human = ctx.output.isHuman;
  const c = ctx.output.chalk;
  const fields: FieldSpec[] = human
    ? [
        { key: 'current', label: '', get: (row) => (row.current ? c.bold('*') : ' ') },
        { key: 'name', label: 'Profile', get: (row) => (row.current ? c.bold(String(row.name)) : row.name) },
        {
          key: 'environment',
          label: 'Environment',
          get: (row) => environmentLabel(row.environment as 'live' | 'test' | null, c),
        },
        { key: 'base_url', label: 'Base URL' },
        { key: 'api_key', label: 'API key', get: (row) => row.api_key ?? c.dim('logged out') },
        { key: 'ca_file', label: 'CA file', get: (row) => row.ca_file ?? '' },
        { key: 'saved_at', label: 'Saved', kind: 'time' },
      ]
    : [
        { key: 'name', label: 'Profile' },
        { key: 'current', label: 'Current' },
        { key: 'environment', label: 'Environment' },
        { key: 'base_url', label: 'Base URL' },
        { key: 'api_key', label: 'API key' },
        { key: 'ca_file', label: 'CA file' },
        { key: 'saved_at', label: 'Saved' },
      ];
  ctx.output.list(rows as unknown as Record<string, unknown>[], fields, {
    empty: 'No profiles saved yet. Run `hedge login` to add one (or try `hedge --demo markets`).',
  });
  if (human && rows.some((row) => row.environment === 'live')) {
    ctx.output.note(c.red('LIVE profiles trade in production, with real money.'));
  }
}

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
  // One column order in every format; on screen the current profile is marked and LIVE is red.
  const fields: FieldSpec[] = [
    { key: 'name', label: 'Profile', priority: 0, style: (text, row) => (row.current ? c.bold(`* ${text}`) : `  ${text}`) },
    { key: 'current', label: 'Current', priority: 9 },
    {
      key: 'environment',
      label: 'Environment',
      priority: 0,
      get: (row) => (human ? (row.environment ?? 'none') : row.environment),
      style: (text, row) => (row.environment === null ? environmentLabel(null, c) : environmentLabel(row.environment as 'live' | 'test', c)),
    },
    { key: 'base_url', label: 'Base URL', kind: 'text', priority: 2 },
    { key: 'api_key', label: 'API key', priority: 1, get: (row) => (human ? (row.api_key ?? 'logged out') : row.api_key), style: (text, row) => (row.api_key ? text : c.dim(text)) },
    { key: 'ca_file', label: 'CA file', kind: 'text', priority: 4 },
    { key: 'journal_url', label: 'Journal store', kind: 'text', priority: 5 },
    { key: 'saved_at', label: 'Saved', kind: 'time', priority: 3 },
  ];
  ctx.output.list(rows as unknown as Record<string, unknown>[], fields, {
    empty: 'No profiles saved yet. Run `hedge login` to add one (or try `hedge --demo markets`).',
    // The table marks the current profile with `*` instead.
    omit: ['current'],
  });
  if (human && rows.some((row) => row.environment === 'live')) {
    ctx.output.note(c.red('LIVE profiles trade in production, with real money.'));
  }
}

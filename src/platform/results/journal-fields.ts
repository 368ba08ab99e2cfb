// How journal entries are shown. The journal file holds server text and can be edited by hand,
// so every string passes safeText.
import type { JournalEntry } from '../journal/index.js';
import type { RowCheck } from '../journal/row-seal.js';
import { bodyOf, isUnresolved, recordedUsd } from '../journal/entry.js';
import { safeText } from '../../core/security/safe-text.js';
import type { FieldSpec } from '../fields/fields.js';
import type { Output } from '../terminal/output.js';
import { JOURNAL_RESOURCE } from '../fields/resource-fields.js';

function text(value: unknown) {
  if (value === undefined || value === null || value === '') return undefined;
  return safeText(
    typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value),
  );
}

function whereOf(entry: JournalEntry) {
  return [entry.environment, entry.profile].filter((part) => typeof part === 'string' && part !== '').join(' · ');
}

interface ListRow {
  id: string;
  created_at: string;
  command: string;
  market?: string;
  side?: string;
  client_reference?: string;
  notional_usd?: number;
  outcome: string;
  hedge_id?: string;
  environment: string;
  host?: string;
  seal?: string;
}

function sealWord(check: RowCheck | undefined) {
  return check === 'unsealed' || check === 'forged' ? 'unverified' : check === 'verified' ? 'verified' : undefined;
}

/**
 * The action's notional: `notional_usd`, or the one number an add/reduce body carries under the
 * server's own name for it (learned from the server: `amount_usd`, `delta_usd`, …).
 */
function listRow(entry: JournalEntry, check: RowCheck | undefined): ListRow {
  const body = bodyOf(entry);
  return {
    id: text(entry.id) ?? '',
    created_at: text(entry.created_at) ?? '',
    command: text(entry.command) ?? '',
    market: text(body.market),
    side: text(body.side),
    client_reference: text(journalReference(entry)),
    notional_usd: recordedUsd(body),
    outcome: text(entry.outcome) ?? '',
    hedge_id: text(entry.hedge_id),
    environment: safeText(whereOf(entry)),
    host: text(entry.host),
    seal: sealWord(check),
  };
}

/** The journal, newest first: as stored under --json, keyed rows in TSV/CSV, a fitted table. */
export async function renderJournalList(
  output: Output,
  entries: JournalEntry[],
  options: { empty: string; now?: number; team?: boolean; checks?: ReadonlyMap<string, RowCheck> },
) {
  const checks = options.checks ?? new Map<string, RowCheck>();
  if (output.isJson) {
    // As stored, plus hedge's verdict on each unresolved row's seal (`seal_check`).
    output.json(
      entries.map((entry) => (checks.has(entry.id) ? { ...entry, seal_check: checks.get(entry.id) } : entry)),
    );
    return;
  }
  const rows = entries.map((entry) => listRow(entry, checks.get(entry.id)));
  // On one machine's journal every entry's host is this machine: the table shows the column for a
  // team store only (TSV, CSV and JSON always carry it); the seal column only when a row is unverified.
  const omit = [...(options.team ? [] : ['host']), ...(rows.some((row) => row.seal === 'unverified') ? [] : ['seal'])];
  await output.list(rows as unknown as Record<string, unknown>[], JOURNAL_RESOURCE, { empty: options.empty, omit });
}

/** The deal reference an entry's action was sent with, or (a close's) the one of the hedge it closed, if any. */
export function journalReference(entry: JournalEntry): string | undefined {
  const reference = bodyOf(entry).client_reference ?? entry.context?.client_reference;
  return typeof reference === 'string' && reference !== '' ? reference : undefined;
}

const SEAL_SAYS: Record<RowCheck | 'not-checked', string | undefined> = {
  verified: 'verified: this key journaled it as it stands',
  unsealed:
    'unverified: no seal this hedge accepts; it is never sent again (look at the book, then `hedge journal resolve`)',
  forged:
    'unverified: its seal does not match; it is never sent again (look at the book, then `hedge journal resolve`)',
  'other-key': undefined,
  'not-checked': undefined,
};

function detailOf(
  entry: JournalEntry,
  check: RowCheck | undefined,
): Array<[key: string, label: string, value: string | undefined]> {
  const request = entry.request ?? { method: '', path: '', body: null };
  return [
    ['id', 'Journal ID', text(entry.id)],
    ['command', 'Command', text(entry.command)],
    ['client_reference', 'Ref', text(journalReference(entry))],
    [
      'argv',
      'As typed',
      Array.isArray(entry.argv) ? safeText(['hedge', ...entry.argv.map(String)].join(' ')) : undefined,
    ],
    ['outcome', 'Outcome', text(entry.outcome)],
    ['created_at', 'Started', text(entry.created_at)],
    ['updated_at', 'Updated', text(entry.updated_at)],
    ['resolved_at', 'Resolved', text(entry.resolved_at)],
    ['environment', 'Environment', text(entry.environment)],
    ['profile', 'Profile', text(entry.profile)],
    ['base_url_host', 'API host', text(entry.base_url_host)],
    ['host', 'Host', text(entry.host)],
    ['key_id', 'Key fingerprint', text(entry.key_id)],
    [
      'via',
      'Via',
      entry.via === 'agent' ? 'an agent (hedge mcp)' : entry.via === 'keeper' ? 'a keeper (hedge keep)' : undefined,
    ],
    ['seal', 'Seal', SEAL_SAYS[check ?? 'not-checked']],
    // Who carries it while unresolved (a live holder is carrying it now; `hedge resume` says which), else who began it.
    entry.holder && isUnresolved(entry)
      ? [
          'holder',
          'Held by',
          safeText(
            `pid ${String(entry.holder.pid)} on ${String(entry.holder.host)} since ${String(entry.holder.since)}`,
          ),
        ]
      : [
          'holder',
          'Begun by',
          entry.holder
            ? text(`pid ${entry.holder.pid} on ${entry.holder.host}, session ${entry.holder.session}`)
            : undefined,
        ],
    ['account', 'Account', text(entry.account)],
    ['request', 'Request', text(`${String(request.method)} ${String(request.path)}`)],
    ['body', 'Body', text(request.body)],
    ['idempotency_key', 'Idempotency key', text(entry.idempotency_key)],
    ['hedge_id', 'Hedge ID', text(entry.hedge_id)],
    ['order_tx_hash', 'Order tx', text(entry.order_tx_hash)],
    ['error_code', 'Error code', text(entry.error_code)],
    ['message', 'Message', text(entry.message)],
    ['group', 'Group', text(entry.group)],
    ['leg', 'Leg', text(entry.leg)],
    ['context', 'Context', text(entry.context)],
  ];
}

/** One entry: as stored under --json, a header of keys and one row in TSV/CSV, a card on a terminal. */
export function renderJournalEntry(
  output: Output,
  entry: JournalEntry,
  options: { now?: number; footer?: string[]; check?: RowCheck },
) {
  if (output.isJson) {
    output.json(options.check === undefined ? entry : { ...entry, seal_check: options.check });
    return;
  }
  const detail = detailOf(entry, options.check);
  const record: Record<string, unknown> = {};
  for (const [key, , value] of detail) record[key] = value;
  const fields: FieldSpec[] = detail.map(([key, label]) => ({
    key,
    label,
    kind: key === 'outcome' ? 'status' : key.endsWith('_at') ? 'time' : 'text',
  }));
  output.record(record, fields, { title: `Journal ${safeText(entry.id)}`, footer: options.footer });
}

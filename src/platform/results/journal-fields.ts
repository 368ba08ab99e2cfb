// Journal entries as shown: the file holds server text and can be edited by hand, so every string passes safeText.
import type { JournalEntry } from '../journal/index.js';
import type { RowCheck } from '../journal/row-integrity.js';
import { bodyOf, isUnresolved, recordedUsd } from '../journal/entry.js';
import { safeText } from '../../core/security/safe-text.js';
import { plainValue } from '../terminal/cells.js';
import { shellWord } from '../../core/program.js';
import { fieldTable } from '../fields/fields.js';
import type { Output } from '../terminal/output.js';
import { JOURNAL_RESOURCE } from '../fields/resource-fields.js';

const text = (value: unknown) => (value == null || value === '' ? undefined : safeText(plainValue(value)));

/** The journal, newest first: as stored under --json, keyed rows in TSV/CSV, a fitted table. */
export async function renderJournalList(
  output: Output,
  entries: JournalEntry[],
  { empty, team, checks }: { empty: string; team?: boolean; checks?: ReadonlyMap<string, RowCheck> },
) {
  // `notional_usd`: also the one number an add/reduce body carries under the server's own name for it.
  const rows = entries.map((entry) => {
    const body = bodyOf(entry);
    const check = checks?.get(entry.id);
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
      environment: safeText(
        [entry.environment, entry.profile].filter((part) => typeof part === 'string' && part).join(' · '),
      ),
      host: text(entry.host),
      // The seal as stored, as JSON has it; hedge's verdict on an unresolved row's, under JSON's name for it.
      seal: text(entry.seal),
      seal_check: check,
    };
  });
  // On one machine's journal every entry's host is this machine: the table shows the column for a
  // team store only (TSV, CSV and JSON always carry it); the verdict only when a row is unverified, the seal itself never.
  const unverified = rows.some((row) => row.seal_check !== undefined && row.seal_check !== 'verified');
  const omit = [...(team ? [] : ['host']), 'seal', ...(unverified ? [] : ['seal_check'])];
  await output.list(rows, JOURNAL_RESOURCE, {
    empty,
    omit,
    // JSON: as stored, plus hedge's verdict on each unresolved row's seal (`seal_check`).
    json: entries.map((entry) => (checks?.has(entry.id) ? { ...entry, seal_check: checks.get(entry.id) } : entry)),
  });
}

/** The deal reference an entry's action was sent with, or (a close's) the one of the hedge it closed, if any. */
export function journalReference(entry: JournalEntry) {
  const reference = bodyOf(entry).client_reference ?? entry.context?.client_reference;
  return typeof reference === 'string' && reference ? reference : undefined;
}

const SEAL_SAYS: Partial<Record<RowCheck, string>> = {
  verified: 'verified: this key journaled it as it stands',
  unsealed:
    'unverified: no seal this hedge accepts; it is never sent again (look at the book, then `hedge journal resolve`)',
  forged:
    'unverified: its seal does not match; it is never sent again (look at the book, then `hedge journal resolve`)',
};

/** An entry's card and TSV columns, in this order: each its entry's own value but where `renderJournalEntry` says otherwise. */
const DETAIL_FIELDS = fieldTable(`
  id               Journal ID       text
  command          Command          text
  client_reference  Ref              text
  argv             As typed         text
  outcome          Outcome          status
  created_at       Started          time
  updated_at       Updated          time
  resolved_at      Resolved         time
  environment      Environment      text
  profile          Profile          text
  base_url_host    API host         text
  host             Host             text
  key_id           Key fingerprint  text
  via              Via              text
  seal             Seal             text
  holder           Begun by         text
  account          Account          text
  request          Request          text
  body             Body             text
  idempotency_key  Idempotency key  text
  hedge_id         Hedge ID         text
  order_tx_hash    Order tx         text
  error_code       Error code       text
  message          Message          text
  group            Group            text
  leg              Leg              text
  context          Context          text`);

/** One entry: as stored under --json, a header of keys and one row in TSV/CSV, a card on a terminal. */
export function renderJournalEntry(output: Output, entry: JournalEntry, footer?: string[], check?: RowCheck) {
  const request = entry.request ?? { method: '', path: '', body: null };
  // Who carries it while unresolved (a live holder is carrying it now; `hedge resume` says which), else who began it.
  const held = entry.holder && isUnresolved(entry);
  // The entry's own values, but where the card says one otherwise.
  const shown: Record<string, unknown> = {
    ...entry,
    client_reference: journalReference(entry),
    argv: Array.isArray(entry.argv)
      ? ['hedge', ...entry.argv.map((word) => shellWord(String(word)))].join(' ')
      : undefined,
    via: entry.via === 'agent' ? 'an agent (hedge mcp)' : entry.via === 'keeper' ? 'a keeper (hedge keep)' : undefined,
    seal: check && SEAL_SAYS[check],
    holder:
      entry.holder &&
      (held
        ? `pid ${entry.holder.pid} on ${entry.holder.host} since ${entry.holder.since}`
        : `pid ${entry.holder.pid} on ${entry.holder.host}, session ${entry.holder.session}`),
    request: `${request.method} ${request.path}`,
    body: request.body,
  };
  const record = Object.fromEntries(DETAIL_FIELDS.map(({ key }) => [key, text(shown[key])]));
  const fields = held
    ? DETAIL_FIELDS.map((field) => (field.key === 'holder' ? { ...field, label: 'Held by' } : field))
    : DETAIL_FIELDS;
  output.record(record, fields, {
    title: `Journal ${safeText(entry.id)}`,
    footer,
    json: check === undefined ? entry : { ...entry, seal_check: check },
  });
}

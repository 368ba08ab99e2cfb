// The documented fields of each write's result, so that `--fields` on a write is checked before anything is sent.
import type { FieldSpec } from '../fields/fields.js';
import { fieldNames, type OutputFields } from '../fields/output-fields.js';
import { APPLY_RESOURCE, HISTORY_FIELDS, PLAN_RESOURCE } from '../fields/resource-fields.js';
import { ROLL_FIELDS } from './roll-outcome.js';
import { CHANGED_SIDE_FIELDS, CLOSE_FIELDS, OPENED_FIELDS, SUBMITTED_FIELDS } from './write-outcome.js';

const keys = (fields: readonly FieldSpec[]) => fields.filter((field) => !field.screenOnly).map((field) => field.key);

// One entry per key of each JSON document's type (the roll's is checked where its type is, cmd/trade/roll.ts): a key
// added to the type fails the typecheck until listed.
export const ROLL_VIEW = {
  market: true,
  side: true,
  notional_usd: true,
  tenor_days: true,
  rolled_hedge_id: true,
  journal_group: true,
  close: true,
  open: true,
};

const CLOSED = fieldNames(keys(CLOSE_FIELDS), keys(HISTORY_FIELDS), ['realized']);
const CHANGED = fieldNames(keys(CHANGED_SIDE_FIELDS), keys(SUBMITTED_FIELDS));

/** Per command: every field its result may carry, in the order a refusal lists them. */
export const RESULT_FIELDS = {
  open: fieldNames(keys(OPENED_FIELDS), keys(SUBMITTED_FIELDS)),
  add: CHANGED,
  // A reduce of the whole position closes it, and is shown as a close.
  reduce: fieldNames(CHANGED, CLOSED),
  close: fieldNames(CLOSED, keys(SUBMITTED_FIELDS)),
  // The card and TSV of the roll, then its JSON document's own keys.
  roll: fieldNames(keys(ROLL_FIELDS), Object.keys(ROLL_VIEW)),
  // The plan is shown first (in tsv and on a terminal), then the report of what was done.
  apply: fieldNames(keys(APPLY_RESOURCE.fields), keys(PLAN_RESOURCE.fields)),
  api: ['data', 'error', 'meta'],
} as const satisfies Record<string, readonly string[]>;

/** `hedge resume` finishes any of them, and prints what that command would have. */
export const RESUMED_FIELDS = fieldNames(...Object.values(RESULT_FIELDS));

/** A write's result: documented names only, checked before the send; shaped after it without ever turning its exit code into 2. */
export function writeResult(names: readonly string[]): OutputFields {
  return { kind: 'records', names, open: false, sends: true };
}

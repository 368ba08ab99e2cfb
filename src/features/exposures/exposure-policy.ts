// The hedging policy of `hedge exposures`: a policy file (JSON) and flags over it, flags winning.
// Each problem is one UsageError line naming the option (or the file's key) and what is allowed.
import { UsageError } from '../../core/errors.js';
import { jsonSyntaxWhere, parseBoundedJson } from '../../core/security/json-keys.js';
import { DEFAULT_POLICY, type ExposurePolicy } from './exposures-rules.js';
import { echo, notAllowed, parseDecimal } from '../../core/input.js';
import { isObject } from '../../core/objects.js';
import { asFunctional } from '../../core/markets.js';

export interface PolicyFlags {
  ratios?: string;
  band?: string;
  sizing?: string;
  functional?: string;
  /** false with --no-netting. */
  netting?: boolean;
}

const RATIOS_ALLOWED =
  'days:percent pairs from the nearest bucket out, the last one * (beyond), e.g. 30:100,90:75,*:50';

/** `30:100,90:75,*:50` → buckets. `where` names the option or the file's key in a problem. */
export function parseRatios(raw: string, where: string) {
  const parts = raw.split(',').map((part) => part.trim());
  const buckets: ExposurePolicy['buckets'] = [];
  const refuse = (why: string) => new UsageError(`${where}: ${why}; expected ${RATIOS_ALLOWED}.`);
  for (const [index, part] of parts.entries()) {
    const match = /^(\*|\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)%?$/.exec(part);
    if (!match) throw refuse(`${echo(raw)} is not allowed`);
    const ratio = Number(match[2]) / 100;
    if (ratio > 1) throw refuse('a ratio above 100% is not allowed');
    if (match[1] === '*') {
      if (index < parts.length - 1) throw refuse('* (beyond) must be the last bucket');
      buckets.push({ ratio });
      continue;
    }
    const withinDays = Number(match[1]);
    // Each bound above the one before it, the first above 0.
    const previous = buckets.at(-1)?.withinDays ?? 0;
    if (!(withinDays > previous)) throw refuse('the days must be above 0 and grow from one bucket to the next');
    buckets.push({ withinDays, ratio });
  }
  // Without a * bucket, exposures beyond the last one are not covered: said by a bucket of 0.
  if (buckets.at(-1)?.withinDays !== undefined) buckets.push({ ratio: 0 });
  return buckets;
}

/** Each key of a policy file: the policy's name for it, its flag, what the file's value must be (a string or a number,
 * read by the flag's parser; netting a boolean) and the flag's parser. */
const POLICY_KEYS: Record<
  string,
  [keyof ExposurePolicy, keyof PolicyFlags, string, ((raw: string, where: string) => unknown)?]
> = {
  ratios: ['buckets', 'ratios', `a string of ${RATIOS_ALLOWED}`, parseRatios],
  band_pct: [
    'bandPct',
    'band',
    'a number from 0 to 50',
    (raw, where) =>
      parseDecimal(raw, {
        name: where,
        unit: 'a percentage of the target',
        min: 0,
        max: 50,
        percent: true,
        example: '5',
      }),
  ],
  sizing: [
    'sizing',
    'sizing',
    'current or fixed',
    (raw, where) => {
      const value = raw.trim().toLowerCase();
      if (value === 'current' || value === 'fixed') return value;
      throw notAllowed(
        where,
        raw,
        "current (USD at today's price, re-sized past the band) or fixed (at the first cover's price)",
      );
    },
  ],
  functional: [
    'functional',
    'functional',
    'a currency code such as USD or NGN',
    (raw, where) => {
      const value = raw.trim().toUpperCase();
      if (!/^[A-Z]{3}$/.test(value))
        throw notAllowed(where, raw, "a currency code: USD (default) or a market's quote currency such as NGN");
      return asFunctional(value);
    },
  ],
  netting: ['netting', 'netting', 'true or false'],
};

/** The policy file's text (JSON) over the defaults; `source` names the file in problems. */
export function parsePolicyFile(text: string, source: string): Partial<ExposurePolicy> {
  const parsed = parseBoundedJson(text, { named: Object.keys(POLICY_KEYS) });
  if (parsed.problem !== undefined && parsed.syntax === undefined && !parsed.repeated)
    throw new UsageError(`--policy: ${source} is JSON ${parsed.problem}; a policy is one object of a few keys.`);
  const expected =
    'expected one object such as {"ratios": "30:100,90:75,*:50", "band_pct": 5, "sizing": "current", "functional": "USD", "netting": true}, each key optional';
  // Not JSON: where and why, as every JSON door says it.
  if (!('value' in parsed))
    throw new UsageError(
      `--policy: ${source} is not valid JSON: ${jsonSyntaxWhere(text, parsed.syntax!)}; ${expected}.`,
    );
  const document = parsed.value;
  if (!isObject(document)) throw new UsageError(`--policy: ${source} is not one JSON object; ${expected}.`);
  // JSON.parse kept the last of two equal keys: the file says two things, and is refused.
  if (parsed.repeated) throw new UsageError(`--policy ${source}: ${parsed.problem}.`);
  // The first problem is the one said: a key's type (in the keys' order), then a key not known, then a value its flag
  // would refuse.
  const given = Object.keys(POLICY_KEYS).filter((key) => Object.hasOwn(document, key));
  const mistyped = given.find((key) =>
    POLICY_KEYS[key][3] ? !/^(string|number)$/.test(typeof document[key]) : typeof document[key] !== 'boolean',
  );
  if (mistyped) throw new UsageError(`--policy ${source}: ${mistyped}: expected ${POLICY_KEYS[mistyped][2]}.`);
  if (Object.keys(document).some((key) => !Object.hasOwn(POLICY_KEYS, key)))
    throw new UsageError(
      `--policy ${source}: a key that is not known; the keys are ratios, band_pct, sizing, functional and netting.`,
    );
  const policy: Record<string, unknown> = {};
  for (const key of given) {
    const [name, , , parse] = POLICY_KEYS[key];
    policy[name] = parse ? parse(String(document[key]), `--policy ${source}: ${key}`) : document[key];
  }
  return policy;
}

/** Defaults, then the policy file, then the flags. */
export function resolvePolicy(file: Partial<ExposurePolicy>, flags: PolicyFlags) {
  const policy: Record<string, unknown> = { ...DEFAULT_POLICY, ...file };
  for (const [name, flag, , parse] of Object.values(POLICY_KEYS)) {
    const raw = flags[flag];
    if (typeof raw === 'string') policy[name] = parse!(raw, `--${flag}`);
  }
  if (flags.netting === false) policy.netting = false;
  return policy as unknown as ExposurePolicy;
}

/** The policy as data (JSON output, the policy section). */
export function policyAsData(policy: ExposurePolicy) {
  return {
    ratios: policy.buckets.map((bucket) => ({
      within_days: bucket.withinDays ?? null,
      ratio_pct: Math.round(bucket.ratio * 10_000) / 100,
    })),
    band_pct: policy.bandPct,
    sizing: policy.sizing,
    functional: policy.functional,
    netting: policy.netting,
  };
}

/** The policy (as data) in words, for the command's header and docs: "100% ≤30d, 75% ≤90d, 50% beyond; band ±5%; …". */
export function describePolicy(policy: ReturnType<typeof policyAsData>) {
  const ratios = policy.ratios
    .map(
      ({ within_days: days, ratio_pct: pct }, index) =>
        `${pct}% ${days === null ? (index === 0 ? 'at any time' : 'beyond') : `within ${days}d`}`,
    )
    .join(', ');
  return `hedge ratio ${ratios}; re-size band ±${policy.band_pct}%; USD sized ${policy.sizing === 'current' ? "at today's price" : "at the first cover's price"}; books in ${policy.functional}; ${policy.netting ? 'receivables and payables netted per market' : 'no netting'}`;
}

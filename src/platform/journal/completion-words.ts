// What shell completion offers besides commands and flags: the markets and hedge ids hedge last read, kept in the
// state folder (bounded, written whole by the one durable write), read by the completion scripts themselves: a Tab
// press starts no hedge and asks no server.
import { join } from 'node:path';
import * as z from 'zod/mini';
import { writeFileDurably } from '../../core/files/durable-write.js';
import { makePrivateDir, readRegularFileSync } from '../../core/security/bounded-read.js';
import { readBoundedJson } from '../../core/security/json-keys.js';

export const COMPLETION_WORDS_FILE = 'completion-words.json';

/** A market or an id as a shell may offer it: nothing a shell would read as more than one word or as code. */
const WORD = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
const MOST = { markets: 100, hedges: 200, relationships: 200 };
const MAX_BYTES = 64 * 1024;
/** `markets`, and per account the hedge ids and relationship ids (hedge acct) read through it: `hedges@demo`,
 * `relationships@profile:NAME` (a run on credentials from the environment, a sandbox's, keeps none); `hedges` is the
 * list an older hedge kept for every account. */
const WORDS = z.record(z.string(), z.array(z.string()));

type CompletionWords = { markets: string[]; hedges: string[] } & Record<string, string[]>;

/** The account whose ids they are, as the keys name it: the demo's, or a saved profile's. */
export const accountKey = (scope: { demo: true } | { profile: string }) =>
  'demo' in scope ? '@demo' : `@profile:${scope.profile}`;

/** What the file in `dir` holds; nothing when it is missing, not hedge's to trust (another user's, a link), too large or not this shape. */
export function readCompletionWords(dir: string): CompletionWords | undefined {
  try {
    const text = readRegularFileSync(join(dir, COMPLETION_WORDS_FILE), {
      maxBytes: MAX_BYTES,
      noFollow: true,
      guard: 'trusted',
    }).toString('utf8');
    const words = readBoundedJson(text, { maxBytes: MAX_BYTES, maxDepth: 2 }, WORDS);
    return typeof words === 'string' ? undefined : { hedges: [], ...words, markets: words.markets ?? [] };
  } catch {
    // Missing, not hedge's to trust or too large: no words.
  }
}

const fitting = (words: readonly string[], most: number) =>
  [...new Set(words.filter((word) => WORD.test(word)))].slice(0, most);

/** Keeps what a command read: a markets list replaces the markets (others add theirs), ids come first, the
 * oldest dropped past the bound; the file is rewritten only when that changes it. */
export function rememberCompletionWords(
  dir: string,
  seen: { marketsList?: string[]; markets: string[]; hedges: string[]; relationships?: string[] },
  /** Whose ids they are (accountKey); none: kept for no account. */
  account?: string,
) {
  const before = readCompletionWords(dir) ?? { markets: [], hedges: [] };
  // The unscoped list of an older hedge is dropped: it mixed every account's ids.
  const { hedges: mixed, ...kept } = before;
  const words: Record<string, string[]> = {
    ...kept,
    markets: fitting(seen.marketsList ?? [...seen.markets, ...before.markets], MOST.markets),
    ...(account && {
      [`hedges${account}`]: fitting([...seen.hedges, ...(before[`hedges${account}`] ?? [])], MOST.hedges),
    }),
    ...(account &&
      seen.relationships?.length && {
        [`relationships${account}`]: fitting(
          [...seen.relationships, ...(before[`relationships${account}`] ?? [])],
          MOST.relationships,
        ),
      }),
  };
  const sorted = (all: Record<string, string[]>) => JSON.stringify(Object.entries(all).sort());
  if (!mixed.length && sorted(words) === sorted(kept)) return;
  makePrivateDir(dir);
  // One word a line (2-space JSON): the completion scripts read it with sed.
  writeFileDurably(join(dir, COMPLETION_WORDS_FILE), `${JSON.stringify(words, null, 2)}\n`);
}

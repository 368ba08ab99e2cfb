// `hedge api`: any endpoint with the profile's key.
import type { HedgeClient } from '../../platform/api/client.js';
import { followPaths, MAX_EMPTY_PAGES } from '../../platform/api/wire/pages.js';
import { isObject } from '../../core/objects.js';
import type { RawAnswer } from '../../platform/api/transport.js';
import { API_METHODS, type ApiMethod } from '../../core/api-params.js';
import { OffOriginError, UsageError } from '../../core/errors.js';
import { changeOf, type JournalEntry } from '../../platform/journal/index.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { resolveApiPath } from '../../core/security/base-url.js';
import { safeText } from '../../core/security/safe-text.js';
import { parseBoundedJson } from '../../core/security/json-keys.js';
import { readInputFile, type InputPorts } from '../write/input-file.js';
import type { WriteAction, WriteStages } from '../write/write-run.js';

/** Journal commands of `hedge api` writes: `api POST /hedges/close`. */
export const API_COMMAND_PREFIX = 'api ';

/** Most pages --paginate reads before it stops and says so (a server whose cursor never ends). */
const MAX_PAGES = 1_000;

interface ApiCall {
  method: ApiMethod;
  /** Relative to the base URL, query included (security/base-url.ts resolveApiPath). */
  path: string;
  /** JSON body of a write; undefined: none. */
  body?: unknown;
  headers: Record<string, string>;
  /** The command as typed again (journal). */
  argv: string[];
}

/** One answer as it came (what `--include` prints), with the body read as JSON (the envelope; undefined when the body is
 * not JSON) and the path it is for. */
export type ApiAnswer = RawAnswer & { body: unknown; path: string };

export function isWriteMethod(method: string) {
  return method !== 'GET';
}

function request(call: ApiCall, path: string, key: string | undefined, seen: (answer: RawAnswer) => void) {
  return {
    method: call.method,
    path,
    ...(call.body !== undefined && { body: call.body }),
    ...(key && { idempotencyKey: key }),
    headers: call.headers,
    onAnswer: seen,
  };
}

/** The last answer an attempt got, kept for printing even when the transport threw on it. */
export class AnswerLog {
  last?: ApiAnswer;
  record(path: string) {
    return (raw: RawAnswer) => {
      // Not JSON, or too deep to walk: only its text is shown.
      const parsed = parseBoundedJson(raw.text, { lastKeyWins: true });
      this.last = { ...raw, body: parsed.problem === undefined ? parsed.value : undefined, path };
    };
  }
}

/** A GET: one answer, or with `paginate` every page through the list commands' one pager (followPaths), each answer handed to `onPage` as it comes. */
export async function readApi(
  ports: Pick<CommandContext, 'credentials'>,
  client: HedgeClient,
  call: ApiCall,
  options: { paginate: boolean; log: AnswerLog; onPage: (answer: ApiAnswer) => void },
) {
  const fetchPath = async (path: string) => {
    const response = await client.transport.send(request(call, path, undefined, options.log.record(path)));
    options.onPage(options.log.last!);
    return response;
  };
  if (!options.paginate) {
    await fetchPath(call.path);
    return;
  }
  const { baseUrl } = await ports.credentials();
  let pages = 0;
  for await (const page of followPaths(baseUrl, call.path, fetchPath, client.wire.cursorParam || undefined)) {
    pages += 1;
    if (page.next === 'repeated')
      throw new UsageError(
        `--paginate: the server pointed back to a page already read (${safeText(page.following!)}); stopped.`,
      );
    if (page.next === 'empty-run')
      throw new UsageError(
        `--paginate: the server gave ${MAX_EMPTY_PAGES} empty pages in a row, each naming another; stopped.`,
      );
    if (page.next === 'page' && pages >= MAX_PAGES)
      throw new UsageError(`--paginate: stopped after ${MAX_PAGES} pages; narrow the list with filters.`);
  }
}

/** Journal fields of a write's answer: the hedge it names, when it names one. */
function idsOf(answer: ApiAnswer) {
  const data = (answer.body as { data?: unknown } | undefined)?.data;
  if (!isObject(data)) return {};
  const { hedge_id: named, id, order_tx_hash: hash } = data;
  const hedgeId = typeof named === 'string' ? named : typeof id === 'string' && id.startsWith('hdg_') ? id : undefined;
  return { ...(hedgeId && { hedge_id: hedgeId }), ...(typeof hash === 'string' && { order_tx_hash: hash }) };
}

/** A write as the one write flow's action, its answers kept in `answers` for the command to print (also one the
 * transport threw on). `hedge api` loads no trade kind (trade-actions.ts): sent as the call says, proven by its
 * answer alone; no view of the book shows what it did, so unanswered its outcome is unknown. */
export function apiAction(client: HedgeClient, call: ApiCall, answers = new AnswerLog()): ApiAction {
  // A trade sent by hand is the side's change as any other: under its lock, and found by the next write on that side.
  const change = changeOf({ request: { method: call.method, path: call.path, body: call.body } });
  return {
    command: `${API_COMMAND_PREFIX}${call.method} ${call.path}`,
    verb: `send ${call.method} ${call.path}`,
    argv: call.argv,
    moves: change && { market: change.market, side: change.side },
    client,
    call,
    answers,
    stages: API_STAGES,
  };
}

/** A `hedge api` write: its call, the client it goes through and the answers kept for printing. */
interface ApiAction extends WriteAction<ApiAnswer, ApiAnswer> {
  client: HedgeClient;
  call: ApiCall;
  answers: AnswerLog;
}

/** The stages of a `hedge api` write (write-run.ts WriteStages): its call sent as it is, its answer its proof. */
const API_STAGES: WriteStages<ApiAction, ApiAnswer, ApiAnswer> = {
  plan: ({ call, answers }, key) => request(call, call.path, key, answers.record(call.path)),
  question: ({ call }) => {
    const body = call.body === undefined ? '' : ` ${JSON.stringify(call.body)}`;
    return `Send ${call.method} ${call.path}${body.length > 200 ? ` ${body.slice(0, 200)}…` : body}?`;
  },
  send: async (write, key) => {
    await write.client.transport.send(API_STAGES.plan(write, key));
    return write.answers.last!;
  },
  submitted: (_write, answer) => idsOf(answer),
  wait: async (_write, answer) => ({ result: answer }),
};

/** An unresolved `hedge api` write from the journal, to send again with its key (`hedge resume`). */
export function apiActionFromJournal(client: HedgeClient, entry: JournalEntry) {
  const method = entry.request?.method as ApiMethod;
  const row = `Journal ${entry.id} (${safeText(entry.command)})`;
  if (!isWriteMethod(method) || !API_METHODS.includes(method)) {
    throw new UsageError(
      `${row} is not resumed: its method ${JSON.stringify(safeText(String(method)))} is not one \`hedge api\` writes with (${API_METHODS.filter(isWriteMethod).join(', ')}); nothing was sent.`,
    );
  }
  const path = journaledPath(client.transport.config.baseUrl, entry.request?.path, row);
  return apiAction(client, {
    method,
    path,
    body: entry.request.body ?? undefined,
    // Extra -H headers are not journaled (they may carry anything); the resend goes without them.
    headers: {},
    argv: Array.isArray(entry.argv) ? entry.argv.map(String) : ['api', '-X', method, path],
  });
}

/** A journaled path as a fresh `hedge api PATH` resolves it, or OffOriginError naming the row (nothing sent). */
function journaledPath(baseUrl: string, journaled: unknown, row: string) {
  const raw = String(journaled);
  let resolved: string | undefined;
  try {
    resolved = resolveApiPath(baseUrl, raw);
  } catch {
    // Refused below, as off the base URL.
  }
  if (resolved === raw) return resolved;
  const shown = JSON.stringify(safeText(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw));
  const why =
    resolved === undefined
      ? 'is not a path under the base URL (a fresh `hedge api` refuses it)'
      : `is not one \`hedge api\` journals (resolved under the base URL it is ${JSON.stringify(safeText(resolved))})`;
  throw new OffOriginError(`${row} is not resumed: its path ${shown} ${why}; nothing was sent.`);
}

/** What to do with a file over the input bound: the API's bodies are a few fields. */
const TOO_LARGE_FOR_A_REQUEST = 'the API takes a few fields per request, not a file of that size';

/** --input FILE (or - for stdin): a JSON body, refused when it is not JSON. */
export async function readInputBody(ports: InputPorts, file: string) {
  const { text } = await readInputFile(
    ports,
    file,
    '--input file',
    'hedge api -X POST PATH --input - < body.json',
    TOO_LARGE_FOR_A_REQUEST,
  );
  const name = file === '-' ? 'stdin' : safeText(file);
  const parsed = parseBoundedJson(text);
  if (parsed.problem !== undefined)
    throw new UsageError(
      `--input: ${name}${parsed.syntax ? ` is not JSON (${parsed.syntax})` : parsed.repeated ? `: ${parsed.problem}` : ` is JSON ${parsed.problem}`}; the API takes JSON bodies only (a few fields, a few levels deep).`,
    );
  const body = parsed.value;
  // The journal keeps "no body" as null: a null body would be resumed as a request without one.
  if (body === null)
    throw new UsageError(`--input: ${name} is JSON null, not a body; leave out --input to send a request without one.`);
  return body;
}

/** A file's text for `-F key=@file` (or @- for stdin). */
export async function readParamFile(ports: InputPorts, file: string) {
  return (
    await readInputFile(ports, file, '-F file', 'hedge api -X POST PATH -F note=@- < note.txt', TOO_LARGE_FOR_A_REQUEST)
  ).text;
}

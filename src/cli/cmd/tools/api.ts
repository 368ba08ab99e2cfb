// `hedge api PATH`: any endpoint with the profile's key, as `gh api` does; the path must stay under the base URL.
// Any method but GET is a write of the one write flow: its Idempotency-Key journaled before it leaves, resumable.
// Unlike `gh api`, parameters never turn a GET into a POST: a write is always asked for with -X.
import { type CommandContext, type In, UsageError } from '../command-input.js';
import { renderDryRun, writeFields } from '../trade/trade-outcome.js';
import { buildParams, parseApiMethod, parseHeader, queryStringOf, type ParamInput } from '../../../core/api-params.js';
import {
  AnswerLog,
  apiAction,
  isWriteMethod,
  readApi,
  readInputBody,
  readParamFile,
  type ApiAnswer,
} from '../../../features/trade/api-call.js';
import { runWrite } from '../../../features/write/write-flow.js';
import { writeOptionsFrom } from '../../../features/write/write-run.js';
import { resolveApiPath } from '../../../core/security/base-url.js';
import { carriesKeyShape } from '../../../core/security/secrets.js';
import { printAnswers } from '../../../platform/results/api-answer.js';
import type { WritePorts } from '../../../features/write/ports.js';

/** What this command uses of its context. */
export type Options = WritePorts & Pick<CommandContext, 'output'>;

/** The request, decided whole before anything is sent: path under the base URL, method, body, headers. */
async function planCall(ctx: Options, { args, options }: In<'API'>) {
  const method = parseApiMethod(options.method);
  const write = isWriteMethod(method);
  const writeOptions = writeOptionsFrom({ ...options, wait: true });
  if (options.input !== undefined && !write)
    throw new UsageError('--input sends a body; give the method too, e.g. -X POST (a GET has no body).');
  if (options.paginate && write)
    throw new UsageError(`--paginate reads a list page by page; it works with GET only (not ${method}).`);
  if (options.until !== undefined && write)
    throw new UsageError(
      `--until reads again until a condition holds; it works with GET only (a ${method} is not sent again).`,
    );
  if (!write && (writeOptions.dryRun || writeOptions.idempotencyKey !== undefined || writeOptions.fresh))
    throw new UsageError(
      '--dry-run, --idempotency-key and --new are for writes; a GET is sent as it is (add -X POST, PUT, PATCH or DELETE for a write).',
    );
  const headers = Object.fromEntries((options.header ?? []).map(parseHeader));
  // -f and -F in the order typed on the line is not kept by the parser: -f first, then -F.
  const inputs = [
    ...(options.rawField ?? []).map((raw) => ({ raw, typed: false })),
    ...(options.field ?? []).map((raw) => ({ raw, typed: true })),
  ];
  // The file of a `-F key=@file`.
  const fileOf = ({ raw, typed }: ParamInput) => {
    const value = raw.slice(raw.indexOf('=') + 1);
    return typed && value.startsWith('@') && value !== '@' ? value.slice(1) : undefined;
  };
  if (options.input === '-' && inputs.some((param) => fileOf(param) === '-'))
    throw new UsageError(
      '--input - and -F key=@- both read stdin, which can be read once; name a file for one of them.',
    );
  // Every file read first (the parameters are built in one pure pass).
  const files = new Map<string, string>();
  for (const file of inputs.map(fileOf))
    if (file !== undefined && !files.has(file)) files.set(file, await readParamFile(ctx, file));
  const params = buildParams(inputs, (file) => files.get(file)!);
  let path = resolveApiPath((await ctx.credentials()).baseUrl, args.path);
  let body = options.input === undefined ? undefined : await readInputBody(ctx, options.input);
  if (Object.keys(params).length) {
    if (!write || options.input !== undefined)
      path = `${path}${path.includes('?') ? '&' : '?'}${queryStringOf(params)}`;
    else body = params;
  }
  // hedge's own key is never data the API needs: a request holding it (a file read whole, such as
  // /proc/self/environ; a header; a path or query escaping it) is refused before anything is sent or journaled, a dry
  // run's included.
  const carrier = [
    ['PATH, -f, -F and --input', `${path} ${JSON.stringify(body) ?? ''}`],
    ...Object.entries(headers).map(([name, value]) => [
      `-H ${carriesKeyShape(name) ? '' : name}`.trim(),
      `${name}: ${value}`,
    ]),
  ].find(([, text]) => carriesKeyShape(text!));
  if (carrier)
    throw new UsageError(
      `${carrier[0]}: the request would carry an API key (or text shaped like one, escaped or not), which hedge never sends as data; nothing was sent.`,
    );
  const argv = [
    'api',
    ...(method === 'GET' ? [] : ['-X', method]),
    args.path,
    ...inputs.map(({ raw, typed }) => `${typed ? '-F' : '-f'} ${raw}`),
  ];
  return { call: { method, path, body, headers, argv }, write: writeOptions };
}

export async function run(ctx: Options, input: In<'API'>) {
  const { call, write } = await planCall(ctx, input);
  const include = input.options.include === true;
  const client = await ctx.client();
  const log = new AnswerLog();
  const pages: ApiAnswer[] = [];
  try {
    if (isWriteMethod(call.method)) {
      const outcome = await runWrite(ctx, apiAction(client, call, log), write);
      if (outcome.kind === 'dry-run') renderDryRun(ctx.output, outcome.planned);
      if (outcome.kind === 'submitted' || outcome.kind === 'resolved') pages.push(outcome.answer);
    } else
      await readApi(ctx, client, call, {
        paginate: input.options.paginate === true,
        log,
        onPage: (page) => pages.push(page),
      });
    printAnswers(ctx.output, pages, include);
  } catch (error) {
    // What the server said, as it said it, before the error line (gh api prints the body too).
    if (log.last && log.last.status >= 400) printAnswers(ctx.output, [log.last], include, true);
    throw error;
  }
}

/**
 * What `hedge api` prints: for a method that writes, the server's envelope (its names checked
 * before anything is sent, platform/results/result-fields.ts); a GET is a read, checked on what came.
 */
export const OUTPUT_FIELDS = (input: In<'API'>) =>
  isWriteMethod(parseApiMethod(input.options.method)) ? writeFields('api')(input) : undefined;

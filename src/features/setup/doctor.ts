// `hedge doctor`: every check a line with its outcome and next step; nothing is written. Ready
// (exit 0) means every check a write needs passed.
import type { HedgeClient, LearnedWire } from '../../platform/api/client.js';
import { readPage, type PageReading } from '../../platform/api/wire/pages.js';
import { POSITION_FIELD_SYNONYMS, readPosition } from '../../platform/api/wire/fields.js';
import type { ObservedAnswer } from '../../platform/api/transport.js';
import { NO_PAGE_SIZE, WIRE_SETTING_SOURCES } from '../../platform/api/wire/unspecified.js';
import type { ResolvedCredentials } from '../../platform/config/credentials.js';
import { asSent } from '../../core/as-sent.js';
import { formatMoney, formatRate, isNumericText, plural } from '../../core/number-format.js';
import { statusStanding, TENORS } from '../../core/vocabulary.js';
import { ApiError, InterruptedError, InvalidResponseError, NetworkError, UsageError } from '../../core/errors.js';
import type { CommandContext } from '../../platform/runtime/context.js';
import { checkClient, isRefusal, refusedKeyNext, type CheckPorts } from './key-check.js';
import { ASSUMED_SKEW_MS, describeServerClock, type ClockReading } from '../../core/server-clock.js';
import { formatSpan } from '../../core/duration.js';
import { redactKey } from '../../core/security/secrets.js';
import { readCaFile } from '../../core/security/bounded-read.js';
import { messageOf } from '../../core/security/safe-text.js';

type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip' | 'info';
/** What a failed check is, as the exit code says it: a key problem, the network or server, an answer hedge cannot read, bad set-up. */
type FailureClass = 'auth' | 'network' | 'unreadable' | 'usage';

/** A clock this far from the server's is a warning; further, a failure. */
const CLOCK_WARN_MS = 5_000;
const CLOCK_FAIL_MS = 30_000;
const QUOTE_PROBE_USD = 1_000;

/**
 * A check: its stable id a script can route on (node_ca, key, node_tls, base_url, journal, auth, clock, markets, prices, quote, account,
 * positions, hedges, hedge, history, wire.*, rate_limits), what it is, how it went, and whether a write needs it
 * (`doctor` exits 0 only when all of those pass). `failure`, absent: the error's own class, as the write it stands for
 * would end (a config store or journal that cannot be used); `error`: the command says its message (the detail) and
 * its hint (the next step, unless one is set).
 */
const checkOf = (
  id: string,
  title: string,
  status: CheckStatus,
  detail: string,
  forWrites = false,
  more: { next?: string; failure?: FailureClass; error?: unknown } = {},
) => ({ id, title, status, detail, forWrites, ...more });
type DoctorCheck = ReturnType<typeof checkOf>;

/** A check that only says what was seen. */
const info = (id: string, title: string, detail: string) => checkOf(id, title, 'info', detail);

/** A failure a check says; an interruption ends the doctor instead. */
function unlessStopped(error: unknown) {
  if (error instanceof InterruptedError) throw error;
  return error;
}

/** What the doctor uses of its command. */
export type DoctorPorts = CheckPorts & Pick<CommandContext, 'credentials' | 'wire' | 'hedgeCommand' | 'journal'>;

export async function runDoctor(ports: DoctorPorts) {
  const checks: DoctorCheck[] = [];
  const caPath = ports.env.NODE_EXTRA_CA_CERTS;
  if (caPath) checks.push(nodeCaCheck(caPath));
  // Key, environment, base URL (nothing sent): without a usable key and base URL, nothing else is asked; the base URL's
  // check may still be failed by the first request.
  let credentials: ResolvedCredentials;
  try {
    credentials = await ports.credentials();
  } catch (error) {
    checks.push(
      checkOf('key', 'Key and base URL', 'fail', '', true, { error: unlessStopped(error) }),
      checkOf('server', 'Server', 'skip', 'not asked: no usable key and base URL', true),
    );
    return report(checks);
  }
  const { apiKey, environment, sources, profileName, caFile } = credentials;
  const from = (source: string, variable: string) =>
    ({ environment: variable, demo: '--demo', flag: 'a flag' })[source] ??
    (profileName ? `profile "${profileName}"` : 'the profile');
  checks.push(
    checkOf(
      'key',
      'Key',
      'ok',
      `${redactKey(apiKey)} — ${environment === 'live' ? 'LIVE key: production, real funds' : 'test key: the sandbox, test funds'} (from ${from(sources.apiKey, 'HEDGE_API_KEY')})`,
      true,
    ),
  );
  if (ports.env.NODE_TLS_REJECT_UNAUTHORIZED === '0') {
    const live = environment === 'live';
    checks.push(
      checkOf(
        'node_tls',
        'NODE_TLS_REJECT_UNAUTHORIZED',
        live ? 'fail' : 'warn',
        live
          ? 'set to 0 (TLS certificate checks off for Node programs): a live key is not sent while it is set'
          : 'set to 0 (TLS certificate checks off for Node programs): hedge verifies certificates anyway',
        true,
        {
          failure: 'usage',
          next: "Remove NODE_TLS_REJECT_UNAUTHORIZED=0 from your shell's profile (`unset NODE_TLS_REJECT_UNAUTHORIZED`); a proxy's own CA goes in HEDGE_CA_FILE.",
        },
      ),
    );
    if (live) return report(checks);
  }
  const url = new URL(credentials.baseUrl);
  const transportNote =
    url.protocol === 'https:'
      ? `HTTPS${caFile ? `, trusting ${caFile} beside the system roots` : ''}`
      : credentials.localSocket !== undefined
        ? "plain HTTP over the demo simulator's own local socket, in this process (no network address)"
        : 'plain HTTP, allowed on loopback only (a local sandbox)';
  const versioned = /\/v\d+$/.test(url.pathname);
  const baseUrl = checkOf(
    'base_url',
    'Base URL',
    versioned ? 'ok' : 'warn',
    `${credentials.baseUrl} — ${transportNote} (from ${from(sources.baseUrl, 'HEDGE_BASE_URL')})${versioned ? '' : '; it does not end with a version segment (…/v2) as the spec says it does'}`,
    true,
    {
      next: versioned
        ? undefined
        : 'Check the address the partner desk gave: it ends with the version, e.g. https://…/partners/NAME/v2.',
    },
  );
  checks.push(baseUrl);
  // The journal every write records itself in before it is sent: where it cannot be read, a write is refused.
  try {
    const journal = await ports.journal();
    const unresolved = (await journal.list({ pending: true })).length;
    const more = unresolved
      ? `: ${plural(unresolved, 'unresolved action')} (\`${ports.hedgeCommand('journal')}\`)`
      : '';
    checks.push(checkOf('journal', 'Journal', 'ok', journal.location + more, true));
  } catch (error) {
    checks.push(checkOf('journal', 'Journal', 'fail', '', true, { error: unlessStopped(error) }));
  }
  // A client that sees every answer, and what it saw: the answers, its warnings, the wire names it learned.
  const answers: ObservedAnswer[] = [];
  const notes: string[] = [];
  const learned: LearnedWire[] = [];
  const wire = await ports.wire();
  const client = await checkClient(ports, credentials, {
    wire: wire.problem ? undefined : wire.settings,
    warn: (text) => notes.push(text),
    learn: (found) => {
      learned.push(found);
      wire.learn(found);
    },
    observe: (answer) => answers.push(answer),
  });

  // ---- reach, TLS, the key accepted: the first request tells ----------------------------------
  let markets: Awaited<ReturnType<HedgeClient['listMarkets']>> | undefined;
  const started = ports.clock.now();
  try {
    markets = await client.listMarkets();
  } catch (error) {
    const stop = firstRequestFailure(ports, unlessStopped(error), credentials, baseUrl);
    if (stop) {
      if (stop !== baseUrl) checks.push(stop);
      checks.push(checkOf('reads', 'Reads', 'skip', 'not asked: the server could not be used', true));
      return report(checks);
    }
  }
  const firstAnswer = answers[0];
  checks.push(
    checkOf(
      'auth',
      'Key accepted',
      'ok',
      `the server accepted the key (${firstAnswer ? `${firstAnswer.endpoint} answered ${firstAnswer.status} in ${formatSpan(Math.max(0, firstAnswer.receivedAt - firstAnswer.sentAt))}` : `answered in ${formatSpan(ports.clock.now() - started)}`})`,
      true,
    ),
  );
  // Said here, learned from every answer the reads below get too.
  const clock = checkOf('clock', 'Clock', 'skip', '');
  checks.push(clock);

  // Each read endpoint answered and readable: markets, then READS in its order. A read that failed: the command describes
  // its error; an answer hedge cannot read names the command to report it with.
  const listed = markets?.markets ?? [];
  const open = listed.filter((entry) => entry.status === 'open').map((entry) => entry.market);
  const other = listed.filter((entry) => entry.status !== 'open').map((entry) => `${entry.market} (${entry.status})`);
  if (markets)
    checks.push(
      checkOf(
        'markets',
        'Markets',
        open.length ? 'ok' : 'warn',
        `${listed.length} listed; open: ${open.join(', ') || 'none'}${other.length ? `; also ${other.join(', ')}` : ''}`,
        true,
        { next: open.length ? undefined : 'No market is open right now: opens and adds will be refused until one is.' },
      ),
    );
  const seen: ReadsSeen = {
    listed: listed.map((entry) => entry.market),
    tradable: open[0],
    positionFields: 'no open position to read its field names from',
    statuses: [],
  };
  for (const [id, title, command, forWrites, read, unasked] of READS)
    try {
      const detail = await read(client, seen);
      if (detail !== undefined) checks.push(checkOf(id, title, 'ok', detail, forWrites));
      else if (unasked) checks.push(checkOf(id, title, 'skip', unasked));
    } catch (error) {
      const unreadable = error instanceof InvalidResponseError;
      checks.push(
        checkOf(id, title, 'fail', '', forWrites, {
          next: unreadable
            ? `hedge cannot read this answer (${error.details?.field || 'data'}: ${error.details?.received ?? '?'}); report it with the output of \`${ports.hedgeCommand(...command.split(' '), '--verbose')}\`.`
            : undefined,
          failure: unreadable ? 'unreadable' : isRefusal(error) ? 'auth' : 'network',
          error: unlessStopped(error),
        }),
      );
    }
  Object.assign(clock, clockCheck(client.transport.serverClock.reading()));
  // The wire choices detected: prices shape, page-size parameter, list paging, position fields, the add/reduce amount,
  // statuses, what was learned.
  const { statuses } = seen;
  const amount = wire.sources.changeNotionalField;
  const unknown = statuses.filter((status) => statusStanding(status) === 'settling');
  checks.push(
    info('wire.prices', 'Prices shape', seen.pricesShape ?? 'not seen'),
    ...(await pageSizeChecks(client, wire.settings.pageSizeParam, seen.hedgesRead)),
    info('wire.positions', 'Position fields', seen.positionFields),
    info(
      'wire.amount',
      'Add/reduce amount',
      `\`${client.wire.changeNotionalField}\` (${amount === 'default' ? 'guessed: the spec does not show it' : amount === 'learned' ? 'learned from the server' : `set in the ${amount}`}); only a write can show it: a server that wants another name refuses the first add naming it, and hedge sends it again once with that name`,
    ),
    info(
      'wire.statuses',
      'Statuses',
      statuses.length === 0
        ? 'no hedge to read statuses from'
        : `seen: ${statuses.join(', ')}${unknown.length ? ` (${unknown.join(', ')} not in the spec: shown as sent; the side model reads a hedge in it as settling, neither open nor ended)` : ''}`,
    ),
    ...learned.map((found) =>
      info(
        `wire.learned.${found.setting}`,
        'Learned',
        `${WIRE_SETTING_SOURCES[found.setting].profileKey} = ${found.value} (${found.evidence})`,
      ),
    ),
    ...(wire.problem
      ? [
          checkOf('wire.settings', 'Wire settings', 'fail', wire.problem, true, {
            next: 'Fix or unset that setting.',
            failure: 'usage',
          }),
        ]
      : []),
  );

  // ---- rate limits ----------------------------------------------------------------------------
  checks.push(rateLimitCheck(answers), ...notes.map((note) => info('note', 'Note', note)));
  return report(checks);
}

/** Ready when no check a write needs failed; else the first such check. */
function report(checks: DoctorCheck[]) {
  const failed = checks.find((check) => check.forWrites && check.status === 'fail');
  return { checks, ready: !failed, failed };
}

/** NODE_EXTRA_CA_CERTS, when set: Node itself reads it as it starts, before hedge runs, and waits for ever on a FIFO that
 * no one writes (every command, `--version` too, hangs), which hedge cannot prevent; judged here as a CA file is, by a
 * look at the path that opens nothing that could block. */
function nodeCaCheck(path: string) {
  const title = 'NODE_EXTRA_CA_CERTS';
  try {
    readCaFile(path, title);
    return checkOf('node_ca', title, 'ok', `${path}: a PEM file Node trusts beside the system roots`, true);
  } catch (error) {
    return checkOf('node_ca', title, 'fail', (error as Error).message.replace(/; nothing was sent\.$/, '.'), true, {
      failure: 'usage',
      next: `Node reads NODE_EXTRA_CA_CERTS before hedge starts, and a FIFO or device there can hang every command: point it at a regular PEM file only you can change, or \`unset NODE_EXTRA_CA_CERTS\` (HEDGE_CA_FILE is read by hedge itself, bounded, never waited on).`,
    });
  }
}

/** What the reads showed: the markets to ask about, and the wire choices the doctor's wire step says. */
interface ReadsSeen {
  listed: string[];
  tradable?: string;
  newest?: string;
  pricesShape?: string;
  positionFields: string;
  statuses: string[];
  /** How many hedges the hedges check read: more than one says a one-row answer was a page. */
  hedgesRead?: number;
}

/** A read endpoint's check: `read` resolves undefined when there is nothing to ask (`unasked`: said as skipped); the command that reads it is named in a failure's next step. */
type EndpointCheck = [
  id: string,
  title: string,
  command: string,
  forWrites: boolean,
  read: (client: HedgeClient, seen: ReadsSeen) => Promise<string | undefined>,
  unasked?: string,
];

/** The read endpoints in the order checked. */
const READS: EndpointCheck[] = [
  [
    'prices',
    'Prices',
    'price',
    false,
    async (client, seen) => {
      if (!seen.listed.length) return;
      const { data, quotes, problem } = await client.readPrices(seen.listed.slice(0, 1));
      seen.pricesShape = describeShape(data);
      if (problem) throw problem;
      return `${quotes[0].market} ${Number(quotes[0].price.toPrecision(12))} (GET /prices, read from ${seen.pricesShape})`;
    },
  ],
  [
    'quote',
    'Quote',
    'quote MARKET buy 1000 --tenor 1',
    true,
    async (client, { tradable }) => {
      if (!tradable) return;
      const quote = await client.createQuote({
        market: tradable,
        side: 'buy',
        notional_usd: QUOTE_PROBE_USD,
        tenor_days: TENORS[0],
      });
      return `${formatMoney(QUOTE_PROBE_USD)} USD buy ${tradable}, ${TENORS[0]} day: execution ${formatRate(quote.pricing.execution_price)}, upfront ${formatMoney(quote.upfront.total_upfront_usdc)} USDC (POST /quotes opens nothing)`;
    },
    'no open market to quote',
  ],
  [
    'account',
    'Account',
    'account',
    true,
    async (client) => {
      const account = await client.getAccount();
      // Whether the server sent any amount as a decimal string.
      const asText = Object.values(asSent(account)).some((value) => typeof value === 'string' && isNumericText(value));
      return `balance ${formatMoney(account.balance_usdc)} USDC, headroom ${formatMoney(account.available_exposure_usd)} USD${asText ? ' (amounts sent as decimal strings, read as numbers)' : ''}`;
    },
  ],
  [
    'positions',
    'Positions',
    'positions',
    true,
    async (client, seen) => {
      const positions = await client.listPositions();
      const [raw] = positions;
      if (raw) {
        // Which of each fact's names the line used.
        const facts = readPosition(raw);
        const named = (fact: string, key: 'side' | 'notionalUsd') => {
          if (facts[key] === undefined) return `${fact}: not on the line (taken from its hedge)`;
          const found = POSITION_FIELD_SYNONYMS[key].find((name) => raw[name] !== undefined);
          return `${fact} from \`${found ?? '?'}\``;
        };
        seen.positionFields = [
          named('side', 'side'),
          named('notional', 'notionalUsd'),
          `net margin from \`net_margin_usd\`${typeof raw.net_margin_usd === 'string' ? ' (a decimal string)' : ''}`,
        ].join(', ');
      }
      return `${plural(positions.length, 'open line')} (GET /positions: what add, reduce and close wait on)`;
    },
  ],
  [
    'hedges',
    'Hedges',
    'hedges',
    true,
    async (client, seen) => {
      const { items, more } = await client.readHedges({ limit: 20 });
      seen.statuses = [...new Set(items.map((hedge) => hedge.status))];
      seen.newest = items[0]?.id;
      seen.hedgesRead = items.length;
      return `GET /hedges readable (${items.length} read${more ? ', more on the server' : ''})`;
    },
  ],
  [
    'hedge',
    'One hedge',
    'hedges ID',
    true,
    async (client, { newest }) => {
      if (!newest) return;
      const hedge = await client.getHedge(newest);
      return `GET /hedges/${hedge.id} readable (${hedge.status}): what open waits on`;
    },
  ],
  [
    'history',
    'History',
    'history',
    false,
    async (client) => {
      const { items, more } = await client.readHistory({ limit: 20 });
      return `GET /hedges/history readable (${items.length} read${more ? ', more on the server' : ''})`;
    },
  ],
];

/** The first request failed: why, as the line that stops the rest. A TLS trust failure, no answer at all, a 404 (the base URL points elsewhere) and a refused key each name their next step. */
function firstRequestFailure(
  ports: DoctorPorts,
  error: unknown,
  credentials: ResolvedCredentials,
  baseUrl: DoctorCheck,
) {
  const failed = (failure: FailureClass, detail: string, next: string) =>
    Object.assign(baseUrl, { status: 'fail', failure, detail: `${credentials.baseUrl} — ${detail}`, next });
  if (error instanceof NetworkError) {
    const tls = /TLS|certificate/i.test(error.message);
    return failed(
      'network',
      `${tls ? 'TLS failed' : 'no usable answer'}: ${error.message}`,
      tls
        ? "Trust the server's CA: point HEDGE_CA_FILE (or the profile's ca_file, `hedge login --ca-file`) at its PEM file."
        : `Check the address and the network (proxy: HTTPS_PROXY/NO_PROXY); \`${ports.hedgeCommand('whoami')}\` shows where it came from.`,
    );
  }
  if (isRefusal(error))
    return checkOf(
      'auth',
      'Key accepted',
      'fail',
      `the server refused the key: ${error.endpoint} answered ${error.status} ${error.code} (${error.message})`,
      true,
      {
        next: refusedKeyNext(credentials, ports.hedgeCommand('login')),
        failure: 'auth',
      },
    );
  if (error instanceof ApiError && error.status === 404)
    return failed(
      'network',
      `${error.endpoint} answered 404 ${error.code}: this address does not serve the API`,
      'Check the base URL: it is the partner-scoped address ending with the version segment (https://…/partners/NAME/v2), without /markets.',
    );
  // Refused before it was sent (a CA file others may change): so would a write be, with the same exit code.
  if (error instanceof UsageError) return Object.assign(baseUrl, { status: 'fail', detail: '', error });
  if (error instanceof InvalidResponseError && error.details?.field === undefined)
    return failed(
      'unreadable',
      error.message,
      "Something answers at this address, but not with the API's JSON envelope: check the base URL (and any proxy in between).",
    );
}

/** The server's clock against this machine's, as its answers told it (domain/server-clock.ts): the interval, and what taught it. */
export function clockCheck(reading: ClockReading) {
  const { disagreedMs, dateBehindMs, lowMs, highMs = Infinity } = reading;
  const learned = describeServerClock(reading);
  const moved =
    disagreedMs === undefined || dateBehindMs !== undefined
      ? ''
      : `; its answers disagreed by ${formatSpan(disagreedMs)} (a Date header from another clock, or a clock that moved): the newest is used`;
  const next =
    "Set this machine's clock right (NTP: `timedatectl set-ntp true`, or your OS's time settings); if it is right, the server's clock is off: tell the provider. Maturities, countdowns and --since/--until are read against these clocks.";
  const clock = (status: CheckStatus, detail: string, more?: Parameters<typeof checkOf>[5]) =>
    checkOf('clock', 'Clock', status, detail, true, more);
  if (learned === undefined)
    return checkOf(
      'clock',
      'Clock',
      'warn',
      'the server sent no Date header and no stamp that dates it: its clock is unknown',
      false,
      {
        next: `Keep this machine on NTP. Until an answer dates the server's clock (an open's stamp), a keeper takes its rolls as due up to ${formatSpan(ASSUMED_SKEW_MS)} sooner than this machine's clock says.`,
      },
    );
  // How far apart the clocks are at least, and at most (unbounded: nothing bounds one side).
  const low = lowMs!;
  const least = low > 0 ? low : highMs < 0 ? -highMs : 0;
  const most = Math.max(Math.abs(low), Math.abs(highMs));
  const detail = `the server's clock is ${learned}${moved}`;
  if (least > CLOCK_FAIL_MS)
    return clock('fail', `${detail}: more than ${formatSpan(CLOCK_FAIL_MS)} apart`, { next, failure: 'network' });
  const ok = most <= CLOCK_WARN_MS && !moved && dateBehindMs === undefined;
  return ok ? clock('ok', detail) : clock('warn', detail, { next });
}

/** Rate-limit headers seen on any answer (the spec does not show the threshold). */
export function rateLimitCheck(answers: readonly ObservedAnswer[]) {
  const names = new Map<string, string>();
  for (const answer of answers)
    for (const [name, value] of Object.entries(answer.headers))
      if (/^(x-)?ratelimit|^retry-after$/i.test(name)) names.set(name, value);
  return info(
    'rate_limits',
    'Rate limits',
    names.size === 0
      ? `no rate-limit headers seen on ${answers.length} answers; hedge backs off on 429 and honours Retry-After`
      : [...names].map(([name, value]) => `${name}: ${value}`).join(', '),
  );
}

/** A short picture of a JSON shape: `a list of {market, price, timestamp}`, `{rates: a list of {pair, bid, ask}}`. */
export function describeShape(data: unknown, depth = 0): string {
  if (Array.isArray(data)) return data.length ? `a list of ${describeShape(data[0], depth + 1)}` : 'an empty list';
  if (data !== null && typeof data === 'object') {
    const entries = Object.entries(data);
    if (depth >= 2) return `{${entries.map(([key]) => key).join(', ')}}`;
    const keyedByMarket = entries.length > 0 && entries.every(([key]) => /^[A-Z0-9]{5,}$/.test(key));
    if (keyedByMarket) return `an object keyed by market of ${describeShape(entries[0][1], depth + 1)}`;
    return `{${entries.map(([key, value]) => (value !== null && typeof value === 'object' ? `${key}: ${describeShape(value, depth + 1)}` : key)).join(', ')}}`;
  }
  return typeof data === 'string' ? 'text' : typeof data;
}

/** The page-size parameter: one hedge asked for; an ignored name makes a stated `meta.page_size` name tried and learned, and a refusal teaches the client its name. */
async function pageSizeChecks(client: HedgeClient, name: string, hedgesRead = 0) {
  const probe = async (parameter: string) => {
    const answer = await client.transport.send({
      method: 'GET',
      path: '/hedges',
      query: parameter === NO_PAGE_SIZE ? {} : { [parameter]: 1 },
    });
    return readPage(answer, {}, answer.url);
  };
  /** The page-size check, and how the list pages when an answer showed it. */
  const say = (status: CheckStatus, detail: string, reading?: PageReading, next?: string) => [
    checkOf('wire.page_size', 'Page size', status, detail, false, { next }),
    ...(reading
      ? [
          info(
            'wire.paging',
            'List paging',
            reading.next
              ? `${reading.next.how}; hedge follows it up to --limit`
              : reading.more === true
                ? 'the server says more exist but gives no way to ask for them'
                : 'no next page in the answer (the list fit one page, or the server does not page)',
          ),
        ]
      : []),
  ];
  /** One row asked: the answer honours it when it states that size back, or gives one row of several. */
  const honours = ({ statedPageSize: stated, rows, more, next, total = 0 }: PageReading, parameter: string) => {
    if (stated?.name === parameter) return stated.value === 1;
    const count = rows?.length ?? 0;
    if (count > 1) return false;
    return count === 1 && (more === true || next !== undefined || total > 1 || hedgesRead > 1) ? true : undefined;
  };
  let first: PageReading;
  try {
    first = await probe(name);
  } catch (error) {
    const message = messageOf(unlessStopped(error));
    if (name === NO_PAGE_SIZE) return say('warn', `GET /hedges: ${message}`);
    // Refused: the list reader asks again the way the refusal says, and learns the name.
    try {
      await client.readHedges({ limit: 1 });
      const now = client.wire.pageSizeParam;
      return say(
        'ok',
        `the server refused \`${name}\`; ${now === NO_PAGE_SIZE ? 'lists go without one' : `it takes \`${now}\``} (learned)`,
      );
    } catch (again) {
      return say(
        'warn',
        `GET /hedges refused \`${name}\`: ${messageOf(unlessStopped(again))}`,
        undefined,
        `Set ${WIRE_SETTING_SOURCES.pageSizeParam.env} to the name the server expects.`,
      );
    }
  }
  if (name === NO_PAGE_SIZE) return say('info', 'none sent (this server takes no page-size parameter)', first);
  const verdict = honours(first, name);
  if (verdict === true) return say('ok', `\`${name}\` honoured (1 asked, 1 came)`, first);
  const stated = first.statedPageSize?.name;
  if (stated && stated !== name) {
    const second = await probe(stated);
    if (honours(second, stated) !== false) {
      client.learnWire({
        setting: 'pageSizeParam',
        value: stated,
        evidence: `GET /hedges ignores \`${name}\` and states its page size as \`${stated}\`, which it honoured`,
      });
      return say(
        'ok',
        `\`${stated}\`: the answer states it and honoured it (\`${name}\` is ignored) — learned`,
        second,
      );
    }
  }
  if (verdict === undefined) return say('info', `\`${name}\` not confirmed: too few hedges to page`, first);
  return say(
    'warn',
    `\`${name}\` is ignored (1 asked, ${first.rows?.length ?? 0} came); hedge trims lists to --limit and follows the server's pages`,
    first,
    `Set ${WIRE_SETTING_SOURCES.pageSizeParam.env} to the server's name if you know it.`,
  );
}

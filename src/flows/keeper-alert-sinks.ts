// Where the keeper's alerts go: `--alert-cmd` (a shell command, the alert as one JSON line on its
// stdin) and `--alert-url` (an HTTP POST of the same JSON, with a Slack-compatible `text` field).
// Both are bounded (10 s), a few at once, and never awaited by the cycle: a slow hook or webhook
// never delays a roll; a problem with one is told back (an `error` event, code alert_cmd/alert_url).
// What an alert says comes partly from the server (an error's code and message): every string of
// its JSON is Slack text (security/slack-text.ts), whichever sink it goes to.
import { spawn } from 'node:child_process';
import { Agent, request } from 'undici';
import type { AlertNotice } from '../domain/alerts.js';
import { UsageError } from '../errors.js';
import { isLoopbackHost, localhostNameNote, loopbackOnlyLookup } from '../security/base-url.js';
import { childEnvironment } from '../security/child-env.js';
import { safeDeep, safeJson, safeText } from '../security/safe-text.js';
import { slackText } from '../security/slack-text.js';
import { containsKeyShape } from '../security/secrets.js';

/** A hook or a POST that has not finished by then is stopped: an alert must never hold the keeper up. */
const ALERT_BOUND_MS = 10_000;
/** At most this many deliveries run at once per sink; one past that is dropped and said. */
const ALERTS_AT_ONCE = 4;

/**
 * The JSON an alert is sent as: the event that started it (when one did) with the alert's own fields
 * on top. Every string in it (the server's error message and code among them) is escaped for Slack:
 * the `text` field is what a Slack webhook posts, and a hook that forwards another field to a chat
 * must not be able to ping a channel or hide a link either. Numbers and booleans are as they were.
 */
export function alertPayload(notice: AlertNotice): Record<string, unknown> {
  const trigger: Record<string, unknown> = notice.alert === 'started' ? (notice.trigger ?? {}) : {};
  const payload: Record<string, unknown> = {
    ...trigger,
    at: notice.at,
    event:
      notice.alert === 'recovered'
        ? 'recovered'
        : typeof notice.trigger?.event === 'string'
          ? notice.trigger.event
          : 'alert',
    alert: notice.alert,
    cause: notice.cause,
    key: notice.key,
    ...(notice.market !== undefined ? { market: notice.market, side: notice.side } : {}),
    message: typeof trigger.message === 'string' ? trigger.message : notice.message,
    since: notice.since,
    ...(notice.duration_s !== undefined ? { duration_s: notice.duration_s } : {}),
    text: notice.text,
  };
  return safeDeep(payload, slackText);
}

/**
 * --alert-url: https anywhere, plain http only to this machine; no user or password in it, and
 * nothing shaped like an API key (a webhook must never carry the account's key). Exit 2 otherwise.
 */
export function parseAlertUrl(raw: string): string {
  const text = raw.trim();
  const refuse = (why: string) =>
    new UsageError(
      `--alert-url: ${why}; expected https://host/path (http:// only to localhost), e.g. a Slack incoming webhook.`,
    );
  if (containsKeyShape(text))
    throw refuse('it holds something shaped like an API key, which must never leave for a webhook');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refuse('not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw refuse(`the scheme ${safeText(url.protocol)} is not allowed`);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    throw refuse(
      `plain http:// to ${safeText(url.hostname)} is not allowed (${localhostNameNote(url.hostname) ?? 'the alert would cross a network in clear text'})`,
    );
  if (url.username || url.password) throw refuse('it carries a user or password');
  return url.toString();
}

/** A webhook's path is its secret (Slack's is): messages name the origin only. */
export function shownAlertUrl(url: string): string {
  return `${new URL(url).origin}/…`;
}

export interface AlertSinks {
  send(notice: AlertNotice): void;
  /** Waits for the deliveries still running (each bounded). */
  settle(): Promise<void>;
}

export function alertSinks(options: {
  command?: string;
  url?: string;
  onProblem: (code: 'alert_cmd' | 'alert_url', message: string) => void;
}): AlertSinks {
  const running = new Set<Promise<void>>();
  const byKind = { cmd: 0, url: 0 };
  const start = (kind: 'cmd' | 'url', deliver: () => Promise<void>) => {
    if (byKind[kind] >= ALERTS_AT_ONCE) {
      options.onProblem(
        kind === 'cmd' ? 'alert_cmd' : 'alert_url',
        `--alert-${kind}: ${ALERTS_AT_ONCE} deliveries are still running; this alert was not sent to it.`,
      );
      return;
    }
    byKind[kind] += 1;
    const delivery = deliver().finally(() => {
      byKind[kind] -= 1;
      running.delete(delivery);
    });
    running.add(delivery);
  };
  return {
    send(notice) {
      const line = safeJson(alertPayload(notice));
      if (options.command)
        start('cmd', () =>
          runAlertCommand(options.command!, line, (message) => options.onProblem('alert_cmd', message)),
        );
      if (options.url)
        start('url', () => postAlert(options.url!, line, (message) => options.onProblem('alert_url', message)));
    },
    async settle() {
      await Promise.all(running);
    },
  };
}

function runAlertCommand(command: string, line: string, onProblem: (message: string) => void): Promise<void> {
  return new Promise((resolve) => {
    // The hook gets the alert, not the keeper's secrets: the key and the store URL are left out of its environment.
    const child = spawn('/bin/sh', ['-c', command], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      env: childEnvironment(process.env),
    });
    const timer = setTimeout(() => {
      try {
        // detached: the shell leads its own process group, so everything it started stops too.
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      onProblem(`--alert-cmd did not finish within ${ALERT_BOUND_MS / 1000} s and was stopped.`);
    }, ALERT_BOUND_MS);
    child.on('error', (error) => onProblem(`--alert-cmd could not run: ${safeText(error.message)}`));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0 && code !== null) onProblem(`--alert-cmd exited ${code}.`);
      resolve();
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(`${line}\n`);
  });
}

async function postAlert(url: string, line: string, onProblem: (message: string) => void): Promise<void> {
  // Plain http:// (to loopback only: parseAlertUrl) connects only to an address that is loopback.
  const loopbackOnly =
    new URL(url).protocol === 'http:' ? new Agent({ connect: { lookup: loopbackOnlyLookup() } }) : undefined;
  try {
    // One bound for the whole delivery: connecting, sending, the answer and its body.
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'hedge-keeper' },
      body: line,
      // undici's request follows no redirect: the alert goes to this URL or nowhere.
      signal: AbortSignal.timeout(ALERT_BOUND_MS),
      ...(loopbackOnly ? { dispatcher: loopbackOnly } : {}),
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    if (response.statusCode >= 300)
      onProblem(`--alert-url ${shownAlertUrl(url)} answered HTTP ${response.statusCode}.`);
  } catch (error) {
    const why =
      (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError'
        ? `did not answer within ${ALERT_BOUND_MS / 1000} s`
        : safeText((error as Error).message);
    onProblem(`--alert-url ${shownAlertUrl(url)}: ${why}.`);
  } finally {
    await loopbackOnly?.close().catch(() => undefined);
  }
}

// Shared by the commands with --watch (price, positions, hedges, account; not a command): the
// watch's sinks — a live view on a terminal, NDJSON otherwise — which the flow (features/book/watch.ts)
// writes each refresh to, and how the watch ended said and turned into the exit code.
import {
  alertRecord,
  parseWatchSettings,
  runWatch,
  type WatchOptionValues,
  type WatchSink,
  type WatchTarget,
} from '../../../features/book/watch.js';
import { type CommandContext, stopExitCode, describeError, exitCodeNamed, safeJson, plural } from '../command-input.js';
import { redrawsInPlace } from '../../../platform/terminal/terminal.js';
import { formatSpan } from '../../../core/duration.js';
import { utcIso } from '../../../core/utc-text.js';

/** What a live view (--watch) uses of its context. */
export type Watching = Pick<
  CommandContext,
  | 'client'
  | 'clock'
  | 'deadline'
  | 'env'
  | 'globals'
  | 'hedgeCommand'
  | 'io'
  | 'log'
  | 'notify'
  | 'onDispose'
  | 'output'
  | 'signal'
>;

/** `hedge … --watch`: checks the options (exit 2 before anything is read), runs the watch, says how it ended. */
export async function watchCommand(ctx: Watching, target: WatchTarget, options: WatchOptionValues) {
  const settings = parseWatchSettings(ctx, target, { ...options, format: ctx.globals.format });
  const live = redrawsInPlace(ctx.io.stdout, ctx.io.stdoutIsTTY) && ctx.output.isHuman;
  const openSink = async () =>
    live
      ? (await import('../../../features/book/watch-view.js')).openLiveView(ctx, settings.intervalMs)
      : ndjsonSink(ctx);
  // NDJSON carries what --json prints (our names), with or without --json; --raw: as sent.
  const oneShape = !live && !ctx.output.raw;
  const outcome = await runWatch(ctx, target, { settings, live, oneShape }, openSink);
  // Ctrl-C, --timeout and --count end a watch with 0; the first alert under --exit-on-alert with 10; SIGTERM and SIGHUP keep their own codes for supervisors.
  const c = ctx.output.chalk;
  switch (outcome.ended) {
    case 'alert': {
      const { describeAlert } = await import('../../../features/book/watch-view.js');
      const code = exitCodeNamed('alert');
      ctx.output.note(
        c.red(
          `Alert: ${describeAlert(outcome.alert, outcome.at + outcome.offsetMs)}. Ended by --exit-on-alert (exit ${code}).`,
        ),
      );
      return code;
    }
    case 'deadline':
      ctx.output.note(c.dim(`Watch ended: --timeout (${formatSpan(ctx.globals.timeout! * 1000)}) reached.`));
      return 0;
    case 'count':
      ctx.output.note(c.dim(`Watch ended: --count ${plural(outcome.count, 'refresh', 'refreshes')} made.`));
      return 0;
    case 'stopped': {
      const stopped = stopExitCode(ctx.signal.reason);
      return stopped === 130 ? 0 : stopped;
    }
  }
}

/**
 * One JSON document per line on stdout: `{time, data}`, `{time, stale, error}`, `{time, alert}`.
 * `data` is what --json prints for the same command, --fields and --query applied.
 */
function ndjsonSink(ctx: Watching): WatchSink {
  let lastGood: string | null = null;
  const line = (record: Record<string, unknown>) => ctx.io.stdout.write(`${safeJson(record)}\n`);
  return {
    fresh(snapshot, at) {
      lastGood = utcIso(at);
      line({ time: lastGood, data: ctx.output.shapeJson(snapshot.data, snapshot.known) });
    },
    stale(error, at, nextAt) {
      const { code, message } = describeError(error);
      line({
        time: utcIso(at),
        stale: true,
        error: { code, message },
        last_good: lastGood,
        next_at: utcIso(nextAt),
      });
    },
    alerts(fired, _holding, at) {
      for (const alert of fired) line({ time: utcIso(at), alert: alertRecord(alert) });
      // The bell goes where it cannot break the data: stderr, and only when a person is there.
      if (fired.length && ctx.io.stderrIsTTY) ctx.io.stderr.write('\u0007');
    },
    tick() {},
    close() {},
  };
}

// How the keeper takes signals: the first SIGTERM/SIGINT ends the loop after the steps in flight; a
// second one is left to the runner (it aborts the steps' waits: their journal entries stay
// unresolved for the next start); SIGHUP re-reads the target before the next cycle. Sleeping is the
// injected clock's, woken by any of them.
import type { FlowPorts } from '../runtime/context.js';
import type { KeeperClock } from './keep-clock.js';

export interface KeeperSignals {
  readonly stopping: boolean;
  /** True once a second stop signal interrupted the steps in progress. */
  readonly interrupted: boolean;
  takeReload(): boolean;
  /** Sleeps until `ms` passed, a stop, or a SIGHUP. */
  sleep(ms: number): Promise<void>;
  /** Aborted by a second stop signal only: what the steps run under. */
  readonly stepSignal: AbortSignal;
  /** Told when the first stop signal arrives (the keeper says it will stop after the current steps). */
  onStopRequested?: (signal: string) => void;
  /**
   * Runs `work` with the stop signals left to the runner (they abort the command's signal at once):
   * for reading the target from stdin before the first cycle, which has no steps to finish — a
   * pipe that never ends must not hold a SIGTERM back.
   */
  leaveStopsToRunner<T>(work: () => Promise<T>): Promise<T>;
  uninstall(): void;
}

export function installSignals(
  ports: Pick<FlowPorts, 'signal' | 'interceptSignals'>,
  clock: KeeperClock,
): KeeperSignals {
  const steps = new AbortController();
  // A signal that came before the keeper started listening was the runner's first: a graceful stop.
  let stopping = ports.signal.aborted;
  let reload = false;
  let wake: AbortController | undefined;
  let runnersStops = false;
  const release = ports.interceptSignals((signal) => {
    if (runnersStops) return false;
    if (signal === 'SIGHUP') {
      reload = true;
      wake?.abort();
      return true;
    }
    if (stopping) return false;
    stopping = true;
    wake?.abort();
    handle.onStopRequested?.(signal);
    return true;
  });
  const onAbort = () => steps.abort(ports.signal.reason);
  if (!ports.signal.aborted) ports.signal.addEventListener('abort', onAbort, { once: true });
  const handle: KeeperSignals = {
    get stopping() {
      return stopping;
    },
    get interrupted() {
      return steps.signal.aborted;
    },
    takeReload() {
      const asked = reload;
      reload = false;
      return asked;
    },
    async sleep(ms) {
      if (stopping) return;
      wake = new AbortController();
      try {
        await clock.sleep(ms, wake.signal);
      } finally {
        wake = undefined;
      }
    },
    stepSignal: steps.signal,
    async leaveStopsToRunner(work) {
      runnersStops = true;
      try {
        return await work();
      } finally {
        runnersStops = false;
      }
    },
    uninstall() {
      release();
      ports.signal.removeEventListener('abort', onAbort);
    },
  };
  return handle;
}

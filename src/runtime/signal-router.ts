// Stop signals belong to the runner (cli/run.ts): the first SIGTERM/SIGINT aborts the command, a
// second ends the process. A long-running command that handles them itself (`hedge keep` finishes
// its steps on SIGTERM and re-reads its file on SIGHUP) asks the runner's router to be offered each
// signal first, and gives it back when it ends — instead of setting a field on the context.

export type SignalInterceptor = (signal: string) => boolean;

export class SignalRouter {
  private interceptor?: SignalInterceptor;

  /** Offers every signal to `take` first (true: taken, the runner does nothing); returns the release. */
  intercept(take: SignalInterceptor): () => void {
    this.interceptor = take;
    return () => {
      if (this.interceptor === take) this.interceptor = undefined;
    };
  }

  /** The runner asks: did a command take this signal? */
  offer(signal: string): boolean {
    return this.interceptor?.(signal) ?? false;
  }
}

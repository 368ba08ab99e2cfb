// Another process driven one command at a time, one JSON line each way: the child
// (test/support/children/journal-process.cjs) answers each command with `{ seq, …answer }`, and an ask still
// waiting when the child exits is refused, not left hanging.
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Drives `child` (spawned with piped stdin and stdout) as a peer. */
export function drivePeer(child: ChildProcess) {
  const waiting = new Map<number, (answer: any) => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const answer = JSON.parse(line);
    waiting.get(answer.seq)?.(answer);
    waiting.delete(answer.seq);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let seq = 0;
  return {
    child,
    exited,
    ask(command: Record<string, unknown>) {
      seq += 1;
      const answer = new Promise<any>((resolve, reject) => {
        waiting.set(seq, resolve);
        void exited.then(() =>
          reject(new Error(`the other process ended before answering ${JSON.stringify(command)}`)),
        );
      });
      child.stdin!.write(`${JSON.stringify({ seq, ...command })}\n`);
      return answer;
    },
  };
}

// The process's streams and what they are connected to: everything that prints or prompts gets
// these injected, so a test runs any command with fake streams and TTY on or off.
export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

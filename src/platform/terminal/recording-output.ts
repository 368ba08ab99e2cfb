// An output that holds what a command prints instead of printing it: the JSON data it hands to the output layer (what `--json` would print, before --fields and --query) and every call, so that the calls can be played onto the real output later — or dropped.
import { Writable } from 'node:stream';
import { Output, type OutputInit } from './output.js';
import { forScripts } from '../fields/script-shape.js';

/** A stream that keeps nothing: a recording output never writes itself. */
function discard() {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

export class RecordingOutput extends Output {
  /** Each call, played in order; `text`: a bare JSON document or text, which only a JSON output can take. */
  private readonly calls: Array<{ text?: boolean; play: (output: Output) => void | Promise<void> }> = [];

  constructor(init: Pick<OutputInit, 'chalk' | 'columns' | 'now'>) {
    // JSON: the command takes its --json branch, so the data is exactly what --json would print.
    super({ ...init, format: 'json', streams: { stdout: discard(), stderr: discard() } });
  }

  /** The last data the command handed over (`undefined`: it printed none). */
  data: unknown;

  /** Whether the calls can be played onto an output of another format: records and lists can (the output layer draws them in any format); a bare JSON document or text cannot. */
  playableAs(output: Output) {
    return output.mode === 'json' || this.calls.every((call) => !call.text);
  }

  async playOnto(output: Output) {
    for (const call of this.calls) await call.play(output);
  }

  override async list(...call: Parameters<Output['list']>) {
    const [rows, known, options] = call;
    // What a condition reads is what --json prints: hedge's one shape (numbers as numbers).
    this.data = forScripts(options.json ?? rows, 'fields' in known ? known.fields : known);
    this.calls.push({ play: (output) => output.list(...call) });
  }

  override record(...call: Parameters<Output['record']>) {
    const [record, known, options] = call;
    this.data = forScripts(options?.json ?? record, known);
    this.calls.push({ play: (output) => output.record(...call) });
  }

  override json(...call: Parameters<Output['json']>) {
    const [data, known, how] = call;
    this.data = how?.asSent ? data : forScripts(data, known);
    this.calls.push({ text: true, play: (output) => output.json(...call) });
  }

  override write(text: string) {
    this.calls.push({ text: true, play: (output) => output.write(text) });
  }

  // Kept for the output the calls are played onto, which decides whether and how it says them.
  override noteIn(...note: Parameters<Output['noteIn']>) {
    this.calls.push({ play: (output) => output.noteIn(...note) });
  }
}

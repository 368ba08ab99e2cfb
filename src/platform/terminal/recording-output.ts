// An output that holds what a command prints instead of printing it: the JSON data it hands to the output layer (what `--json` would print, before --fields and --query) and every call, so that the calls can be played onto the real output later — or dropped.
import { Writable } from 'node:stream';
import type { FieldSpec } from '../fields/fields.js';
import { Output, type ListOptions, type OutputInit, type RecordOptions } from './output.js';
import type { Resource } from '../fields/resource-fields.js';
import { forScripts } from '../fields/script-shape.js';
import type { JsonObject } from '../../core/objects.js';

/** A stream that keeps nothing: a recording output never writes itself. */
function discard() {
  return new Writable({ write: (_chunk, _encoding, done) => done() });
}

export class RecordingOutput extends Output {
  /** Each call, played in order; `text`: a bare JSON document or text, which only a JSON output can take. */
  private readonly calls: Array<{ text?: boolean; play: (output: Output) => void | Promise<void> }> = [];
  private captured: { data: unknown } | undefined;

  constructor(init: Pick<OutputInit, 'chalk' | 'columns' | 'now'>) {
    // JSON: the command takes its --json branch, so the data is exactly what --json would print.
    super({ ...init, format: 'json', streams: { stdout: discard(), stderr: discard() } });
  }

  /** The last data the command handed over (`undefined`: it printed none). */
  get data() {
    return this.captured?.data;
  }

  /** Whether the calls can be played onto an output of another format: records and lists can (the output layer draws them in any format); a bare JSON document or text cannot. */
  playableAs(output: Output) {
    return output.mode === 'json' || this.calls.every((call) => !call.text);
  }

  async playOnto(output: Output) {
    for (const call of this.calls) await call.play(output);
  }

  /** Played onto a JSON output only (a wait that ends unmet leaves a script the last data read); whether it was. */
  async playForScripts(output: Output) {
    if (output.mode !== 'json') return false;
    await this.playOnto(output);
    return true;
  }

  override async list(rows: JsonObject[], known: Resource | readonly FieldSpec[], options: ListOptions) {
    // What a condition reads is what --json prints: hedge's one shape (numbers as numbers).
    this.captured = {
      data: forScripts(options.json ?? rows, 'fields' in known ? known.fields : known),
    };
    this.calls.push({ play: (output) => output.list(rows, known, options) });
  }

  override record(record: JsonObject, known: FieldSpec[], options: RecordOptions = {}) {
    this.captured = { data: forScripts(options.json ?? record, known) };
    this.calls.push({ play: (output) => output.record(record, known, options) });
  }

  override json(data: unknown, known: readonly FieldSpec[] = [], how: { asSent?: boolean } = {}) {
    this.captured = { data: how.asSent ? data : forScripts(data, known) };
    this.calls.push({ text: true, play: (output) => output.json(data, known, how) });
  }

  override write(text: string) {
    this.calls.push({ text: true, play: (output) => output.write(text) });
  }

  // Kept for the output the calls are played onto, which decides whether and how it says them.
  override noteIn(...note: Parameters<Output['noteIn']>) {
    this.calls.push({ play: (output) => output.noteIn(...note) });
  }
}

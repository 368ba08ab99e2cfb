// A screen redrawn in place (the watch, the keeper): kept out of terminal.ts, which every command loads as it starts.
import { displayWidth } from './width.js';

/**
 * A screen redrawn in place (log-update, at the width hedge lays out for) that leaves no debris, drawn
 * from `frame` (undefined: nothing to show yet) on `render`, on a resize, and once more whole on `close`.
 * A terminal re-wraps what it shows when it narrows, so a frame drawn at another width first erases the
 * rows the one before takes now; the last frame is drawn whole over the screen as it is, the `^C` a
 * Ctrl-C echoed below the frame included.
 */
export async function liveScreen(
  stream: NodeJS.WritableStream,
  columns: () => number,
  frame: () => string | undefined,
  options: { showCursor?: boolean } = {},
) {
  const { createLogUpdate } = await import('log-update');
  // What log-update draws on (it uses write, columns and rows alone): `stream`, wrapped at the width hedge lays out
  // for. A forced terminal (HEDGE_FORCE_TTY on a pipe) has no size of its own: log-update would wrap at 80 and keep 24 rows.
  const target = {
    write: (chunk: string) => stream.write(chunk),
    get columns() {
      return columns();
    },
    get rows() {
      return (stream as { rows?: number }).rows ?? Infinity;
    },
  } as unknown as NodeJS.WriteStream;
  let draw = createLogUpdate(target, options);
  let shown: { text: string; width: number } | undefined;
  let closed = false;
  const eraseShown = () => {
    if (shown === undefined) return;
    const width = columns();
    let rows = 0;
    for (const line of shown.text.split('\n')) rows += Math.max(1, Math.ceil(displayWidth(line) / width));
    // log-update's erase: the rows up from the cursor's, the cursor left at the start of the top one.
    stream.write(`${'\u001b[2K\u001b[1A'.repeat(rows)}\u001b[2K\u001b[G`);
    draw = createLogUpdate(target, options);
  };
  const render = () => {
    const text = closed ? undefined : frame();
    if (text === undefined) return;
    if (shown !== undefined && shown.width !== columns()) eraseShown();
    draw(text);
    shown = { text, width: columns() };
  };
  stream.on?.('resize', render);
  return {
    render,
    /** Draws the last frame (if any) and shows the cursor again; nothing is drawn after it. */
    close() {
      if (closed) return;
      closed = true;
      stream.off?.('resize', render);
      const text = frame();
      if (text === undefined) return;
      eraseShown();
      draw(text);
      draw.done();
    },
  };
}

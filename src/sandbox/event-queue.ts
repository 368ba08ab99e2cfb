// The engine's scheduled events as a binary min-heap on (dueMs, sequence), kept in a plain array
// so the state stays JSON. A sorted list cost a shift and a splice per event, each proportional to
// the events pending; with thousands of hedges (every filled one waits for its maturity) that
// made each write slower as the book grew. Here both ends are logarithmic.

import type { ScheduledEvent } from './engine-state.js';

const before = (a: ScheduledEvent, b: ScheduledEvent): boolean =>
  a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.sequence < b.sequence);

export function pushEvent(heap: ScheduledEvent[], event: ScheduledEvent): void {
  heap.push(event);
  let index = heap.length - 1;
  while (index > 0) {
    const parent = (index - 1) >> 1;
    if (!before(heap[index], heap[parent])) break;
    [heap[index], heap[parent]] = [heap[parent], heap[index]];
    index = parent;
  }
}

/** Removes and returns the earliest event if it is due by `nowMs`. */
export function popDueEvent(heap: ScheduledEvent[], nowMs: number): ScheduledEvent | undefined {
  if (heap.length === 0 || heap[0].dueMs > nowMs) return undefined;
  const first = heap[0];
  const last = heap.pop() as ScheduledEvent;
  if (heap.length > 0) {
    heap[0] = last;
    siftDown(heap, 0);
  }
  return first;
}

function siftDown(heap: ScheduledEvent[], start: number): void {
  let index = start;
  for (;;) {
    const left = 2 * index + 1;
    const right = left + 1;
    let smallest = index;
    if (left < heap.length && before(heap[left], heap[smallest])) smallest = left;
    if (right < heap.length && before(heap[right], heap[smallest])) smallest = right;
    if (smallest === index) return;
    [heap[index], heap[smallest]] = [heap[smallest], heap[index]];
    index = smallest;
  }
}

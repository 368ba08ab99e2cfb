// Parts of a loaded state that are parsed only when something reads them (state-file.ts). A demo
// command reads the state file at its start, yet most commands never look at the book's settled
// hedges, its history or its idempotency records: at 5,000 hedges those are 95% of the file
// (docs/performance-history.md). Each such part stays as the bytes it was saved as until first
// read (then it is an ordinary property), and a save writes a part nobody read back as those bytes.

/** A part not parsed yet: how to fetch its bytes, and (for records) what is already known of it. */
interface UnreadPart {
  load: () => Buffer;
  /** Records kept in the core (lazy records only): the part adds to these. */
  eager?: Record<string, unknown>;
}

const pending = new WeakMap<object, Map<PropertyKey, UnreadPart>>();
/** The oldest idempotency record's creation time, for a state whose records are not parsed yet. */
const oldestIdempotency = new WeakMap<object, number | null>();

function remember(target: object, key: PropertyKey, part: UnreadPart): void {
  let parts = pending.get(target);
  if (!parts) pending.set(target, (parts = new Map()));
  parts.set(key, part);
}

function parsePart(load: () => Buffer, describe: () => string): unknown {
  const text = load().toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${describe()} is not valid JSON; delete the file to start afresh`);
  }
}

/**
 * Makes `target[key]` the JSON in the bytes `load` returns, parsed on first read. Assigning it
 * first drops them. Either way `settled` is called once (the caller may then let go of its file).
 * `describe` names the part in the error thrown if the bytes are not JSON.
 */
export function defineLazyPart(
  target: object,
  key: PropertyKey,
  load: () => Buffer,
  describe: () => string,
  settled: () => void = () => {},
): void {
  remember(target, key, { load });
  const settle = (value: unknown): void => {
    pending.get(target)?.delete(key);
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
    settled();
  };
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get() {
      const value = parsePart(load, describe);
      settle(value);
      return value;
    },
    set(value: unknown) {
      settle(value);
    },
  });
}

/**
 * Makes `target[key]` a record object holding `eager` and, once something asks for a key `eager`
 * does not have (or for every key), the records of the part `load` returns as well. Adding a
 * record reads nothing. An account's hedges: the open ones are in the core, the settled ones in
 * a part, so the open book is read without the history of the book. The idempotency records: none
 * in the core, and an index of the part's keys, so a write with a new key reads none of them.
 */
export function defineLazyRecords(
  target: object,
  key: PropertyKey,
  eager: Record<string, unknown>,
  load: () => Buffer,
  describe: () => string,
  settled: () => void = () => {},
  /** False when the part certainly lacks `key` (an index of its keys says so): asked for, it is absent, nothing read. */
  mayHold: (key: string) => boolean = () => true,
): void {
  remember(target, key, { load, eager });
  let merged = false;
  const finish = (value: unknown): void => {
    merged = true;
    pending.get(target)?.delete(key);
    // From now on the records themselves, without the proxy (whoever holds the proxy still sees them).
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
    settled();
  };
  // A part that cannot be read throws at every access, never only at the first: the records
  // without it would be a book that silently lost its past.
  const merge = (): void => {
    if (merged) return;
    const records = parsePart(load, describe);
    if (records === null || typeof records !== 'object' || Array.isArray(records))
      throw new Error(`${describe()} is not a set of records; delete the file to start afresh`);
    for (const [id, record] of Object.entries(records)) if (!Object.hasOwn(eager, id)) eager[id] = record;
    finish(eager);
  };
  const unknownKey = (name: PropertyKey): boolean =>
    typeof name === 'string' && !Object.hasOwn(eager, name) && mayHold(name);
  const records = new Proxy(eager, {
    get(object, name, receiver) {
      if (unknownKey(name)) merge();
      return Reflect.get(object, name, receiver);
    },
    has(object, name) {
      if (unknownKey(name)) merge();
      return Reflect.has(object, name);
    },
    getOwnPropertyDescriptor(object, name) {
      if (unknownKey(name)) merge();
      return Reflect.getOwnPropertyDescriptor(object, name);
    },
    // Adding (or replacing) a record needs nothing from the part: set on the records themselves
    // (without this trap, an assignment asks the proxy for the key's descriptor first).
    set(object, name, value) {
      return Reflect.set(object, name, value);
    },
    ownKeys(object) {
      merge();
      return Reflect.ownKeys(object);
    },
    deleteProperty(object, name) {
      merge();
      return Reflect.deleteProperty(object, name);
    },
  });
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get: () => records,
    set(value: unknown) {
      if (!merged) finish(value);
    },
  });
}

/** The bytes `target[key]` was saved as, while nothing has read it; undefined once it is a value. */
export function unreadPart(target: object, key: PropertyKey): Buffer | undefined {
  return pending.get(target)?.get(key)?.load();
}

/** The records of a lazy records part that are already in memory, while its part is unread. */
export function eagerRecords(target: object, key: PropertyKey): Record<string, unknown> | undefined {
  return pending.get(target)?.get(key)?.eager;
}

/** Whether `target[key]` is still unread (cheaper than unreadPart: nothing is fetched). */
export function isUnread(target: object, key: PropertyKey): boolean {
  return pending.get(target)?.has(key) === true;
}

/** Records what a loaded state said of its oldest idempotency record (null: it has none). */
export function setOldestIdempotencyHint(state: object, createdAtMs: number | null): void {
  oldestIdempotency.set(state, createdAtMs);
}

/**
 * The oldest idempotency record's creation time without parsing the records: the hint the state
 * was loaded with while they are unread, else undefined (look at the records themselves).
 */
export function oldestIdempotencyHint(state: { idempotency: unknown }): number | null | undefined {
  if (!isUnread(state, 'idempotency')) return undefined;
  return oldestIdempotency.get(state);
}

// One text per JSON value, whatever the key order: how "the same request body" is decided, by hedge's journal and
// the simulator alike.

/** JSON with object keys sorted at every depth; numbers as JSON writes them (10000 and 1e4 agree). JSON.stringify
 * hands the replacer each value after its toJSON (a Date as its ISO text). */
export function canonicalJson(value: unknown) {
  return (
    JSON.stringify(value, (_, each: Record<string, unknown>) =>
      // Defined, not assigned: a key named __proto__ stays a key (assigned, it would set the prototype and vanish).
      each !== null && typeof each === 'object' && !Array.isArray(each)
        ? Object.fromEntries(
            Object.keys(each)
              .sort()
              .map((name) => [name, each[name]]),
          )
        : each,
    ) ?? 'null'
  );
}

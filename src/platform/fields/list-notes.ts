// What a list says when it holds fewer rows than the server has: never fewer rows without a word.

/** The warning for a list that stopped short of what was asked while the server signals more, or that is one page of more (no --limit); undefined when the list is whole or as long as asked. */
export function moreNote(
  list: { items: readonly unknown[]; more: boolean; cutAt?: number; total?: number },
  limit: number | undefined,
  noun: string,
  moreCommand: string,
  defaultLength?: boolean,
) {
  if (list.cutAt !== undefined)
    return `The list may be cut at ${list.cutAt} ${noun}: the server gave no next page (it may not read the page size hedge sends). \`hedge doctor\` shows how it pages; set HEDGE_WIRE_PAGE_SIZE_PARAM to its page-size parameter.`;
  if (!list.more) return;
  const count = list.items.length;
  if (limit === undefined)
    return `The server has more ${noun} than the ${count} shown (one page); ask for more with \`${moreCommand}\`.`;
  // hedge's default length, reached: the rest is one flag away (--limit N, or --all).
  if (defaultLength && count >= limit)
    return `${count} ${noun} shown (the default); there are more: \`${moreCommand}\` lists every one, --limit N up to 500.`;
  if (count >= limit) return;
  // A total the server stated, not reached: its pages ended or moved (rows came in front) before the rest.
  if (list.total !== undefined && count < list.total)
    return `Only ${count} of the ${list.total} ${noun} the server counts could be read: its pages ended or moved before the rest. Run it again; \`hedge doctor\` shows how it pages.`;
  const asked = Number.isFinite(limit) ? ` of the ${limit} ${noun} asked` : ` ${noun}`;
  return `Only ${count}${asked} could be read: the server says more exist but gave no way to ask for the next page. \`hedge doctor\` shows how it pages.`;
}

/**
 * A compose template in Kade's syntax built from a tree, for the Portainer and Cosmos importers. Every scalar and
 * key is written double-quoted with each `{` as `\x7b` (YAML decodes it back), so no source text can form a `{{`
 * tag: the only tags in the output are the placeholders and sections the importer put there itself.
 */

/** One piece of a string: literal text, a field's placeholder, or a section kept when a field is (not) set. */
export type Part = { lit: string } | { field: string } | { when: Cond; parts: Part[] };
export interface Cond {
  field: string;
  negate: boolean;
}

export type Node =
  | { k: 'scalar'; v: string | number | boolean | null }
  | { k: 'text'; parts: Part[] }
  | { k: 'map'; entries: Entry[] }
  | { k: 'seq'; items: Item[] };
export type Entry = { key: string; value: Node } | { cond: Cond; yes: Entry[]; no: Entry[] };
export type Item = Node | { cond: Cond; yes: Item[]; no: Item[] };

export const lit = (v: string | number | boolean | null): Node => ({ k: 'scalar', v });
export const text = (parts: Part[]): Node => ({ k: 'text', parts });
export const map = (entries: Entry[]): Node => ({ k: 'map', entries });
export const seq = (items: Item[]): Node => ({ k: 'seq', items });
export const isCondEntry = (e: Entry): e is Extract<Entry, { cond: Cond }> => 'cond' in e;
export const isCondItem = (i: Item): i is Extract<Item, { cond: Cond }> => 'cond' in i;

/** A JSON string is a YAML double-quoted scalar; `{` becomes `\x7b` so mustache never sees a tag in it. */
const quoteInner = (s: string): string => JSON.stringify(s).slice(1, -1).replace(/\{/g, '\\x7b');
const quote = (s: string): string => `"${quoteInner(s)}"`;

const tag = (c: Cond, open: boolean) => (open ? `{{${c.negate ? '^' : '#'}${c.field}}}` : `{{/${c.field}}}`);

function partsText(parts: Part[]): string {
  return parts
    .map((p) => {
      if ('lit' in p) return quoteInner(p.lit);
      if ('field' in p) return `{{${p.field}}}`;
      return `${tag(p.when, true)}${partsText(p.parts)}${tag(p.when, false)}`;
    })
    .join('');
}

function scalarText(n: Extract<Node, { k: 'scalar' | 'text' }>): string {
  if (n.k === 'text') return `"${partsText(n.parts)}"`;
  if (typeof n.v === 'string') return quote(n.v);
  return n.v === null ? 'null' : String(n.v);
}

const isEmptyNode = (n: Node) => (n.k === 'map' && n.entries.length === 0) || (n.k === 'seq' && n.items.length === 0);

/** Section lines stand alone, so mustache removes them whole and the indentation of the rest stays. */
function emitBranches<T>(c: Cond, yes: T[], other: T[], each: (list: T[]) => string[]): string[] {
  const out: string[] = [];
  if (yes.length) out.push(tag(c, true), ...each(yes), tag(c, false));
  if (other.length) out.push(tag({ ...c, negate: !c.negate }, true), ...each(other), tag(c, false));
  return out;
}

function emitEntries(entries: Entry[], indent: number): string[] {
  const pad = ' '.repeat(indent);
  return entries.flatMap((e) => {
    if (isCondEntry(e)) return emitBranches(e.cond, e.yes, e.no, (l) => emitEntries(l, indent));
    const head = `${pad}${quote(e.key)}:`;
    const v = e.value;
    if (v.k === 'scalar' || v.k === 'text') return [`${head} ${scalarText(v)}`];
    if (isEmptyNode(v)) return [`${head} ${v.k === 'map' ? '{}' : '[]'}`];
    return [head, ...emitNode(v, indent + 2)];
  });
}

function emitItems(items: Item[], indent: number): string[] {
  const pad = ' '.repeat(indent);
  return items.flatMap((i) => {
    if (isCondItem(i)) return emitBranches(i.cond, i.yes, i.no, (l) => emitItems(l, indent));
    if (i.k === 'scalar' || i.k === 'text') return [`${pad}- ${scalarText(i)}`];
    if (isEmptyNode(i)) return [`${pad}- ${i.k === 'map' ? '{}' : '[]'}`];
    return [`${pad}-`, ...emitNode(i, indent + 2)];
  });
}

function emitNode(n: Node, indent: number): string[] {
  if (n.k === 'map') return emitEntries(n.entries, indent);
  if (n.k === 'seq') return emitItems(n.items, indent);
  return [`${' '.repeat(indent)}${scalarText(n)}`];
}

/** The keys a list of entries sets, in any branch. */
const keysOf = (entries: Entry[]): Set<string> => new Set(entries.flatMap((e) => (isCondEntry(e) ? [...keysOf(e.yes), ...keysOf(e.no)] : [e.key])));

/** Takes every entry of `key` out of `entries` (inside sections too), returning them with the sections they stood in. */
function extractKey(entries: Entry[], key: string): { rest: Entry[]; taken: Entry[] } {
  const rest: Entry[] = [];
  const taken: Entry[] = [];
  for (const e of entries) {
    if (!isCondEntry(e)) {
      (e.key === key ? taken : rest).push(e);
      continue;
    }
    const yes = extractKey(e.yes, key);
    const no = extractKey(e.no, key);
    if (yes.taken.length || no.taken.length) taken.push({ cond: e.cond, yes: yes.taken, no: no.taken });
    if (yes.rest.length || no.rest.length) rest.push({ cond: e.cond, yes: yes.rest, no: no.rest });
  }
  return { rest, taken };
}

/**
 * A mapping whose key comes twice (a source that sets it again, or inside a block) as YAML allows it: once. The
 * later entry wins, as it does when the source's JSON is read; an earlier one stays for the branch of a later
 * section that does not set the key.
 */
function mergeKeys(entries: Entry[]): Entry[] {
  let out: Entry[] = [];
  for (const e of entries) {
    if (!isCondEntry(e)) {
      out = extractKey(out, e.key).rest;
      out.push({ key: e.key, value: mergeNode(e.value) });
      continue;
    }
    let yes = mergeKeys(e.yes);
    let no = mergeKeys(e.no);
    for (const key of keysOf([...yes, ...no])) {
      const { rest, taken } = extractKey(out, key);
      if (taken.length === 0) continue;
      out = rest;
      yes = mergeKeys([...taken, ...yes]);
      no = mergeKeys([...taken, ...no]);
    }
    out.push({ cond: e.cond, yes, no });
  }
  return out;
}

const mergeItem = (i: Item): Item => (isCondItem(i) ? { ...i, yes: i.yes.map(mergeItem), no: i.no.map(mergeItem) } : mergeNode(i));
function mergeNode(n: Node): Node {
  if (n.k === 'map') return map(mergeKeys(n.entries));
  if (n.k === 'seq') return seq(n.items.map(mergeItem));
  return n;
}

/** The compose template text of a root mapping; a key set twice in one mapping is written once (see `mergeKeys`). */
export const emitCompose = (root: Extract<Node, { k: 'map' }>): string => `${emitEntries(mergeKeys(root.entries), 0).join('\n')}\n`;

/** Literal text with `$` doubled: for sources whose strings compose must not interpolate. */
export const dollarSafe = (s: string): string => s.replace(/\$/g, '$$$$');

/** A plain JS value (parsed JSON or YAML) as a tree; `str` maps each string (placeholders, escaping). */
export function fromPlain(v: unknown, str: (s: string) => Node = (s) => lit(s)): Node {
  if (typeof v === 'string') return str(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return lit(v ?? null);
  if (Array.isArray(v)) return seq(v.map((x) => fromPlain(x, str)));
  return map(Object.entries(v as Record<string, unknown>).map(([key, value]) => ({ key, value: fromPlain(value, str) })));
}

/**
 * Cosmos's cosmos-compose.json is JSON with whiskers tags (`{ServiceName}`, `{Context.x}`, `{Passwords.0}`,
 * `{if Context.x}` … `{else}` … `{/if}`), usually not valid JSON before Cosmos renders it. This reads it as a tree
 * whose conditional blocks hold whole entries (or pieces of a string), so the importer can map the structure
 * without rendering it. Conditions on constants are decided here; conditions on form values stay in the tree.
 */
import { refuse } from './portainer-common.ts';

/** A condition on a form value (`Context.<name>`), decided later when the form is known. */
export interface WCond {
  ctx: string;
  negate: boolean;
}
export type WPart = { lit: string } | { v: string } | { when: WCond; yes: WPart[]; no: WPart[] };
export type WValue =
  | { t: 'str'; parts: WPart[] }
  | { t: 'lit'; v: number | boolean | null }
  | { t: 'obj'; members: WMember[] }
  | { t: 'arr'; items: WItem[] }
  /** A block inside one entry (`"restart": {if Context.x} "always" {else} "no" {/if}`): a value per branch, null for none. */
  | { t: 'cond'; when: WCond; yes: WValue | null; no: WValue | null };
export type WMember = { key: WPart[]; value: WValue } | { when: WCond; yes: WMember[]; no: WMember[] };
export type WItem = WValue | { when: WCond; yes: WItem[]; no: WItem[] };

type Cell<T> = T | { when: WCond; yes: Cell<T>[]; no: Cell<T>[] };

type Tok =
  | { k: 'p'; c: string; at: number }
  | { k: 'str'; s: string; at: number }
  | { k: 'lit'; v: number | boolean | null; at: number }
  | { k: 'tag'; tag: string; at: number };

// A name may hold `-`: `{Context.<field>-name}` is the container a form field picked.
const TAG = /\{(if +[^{}]+|else(?: +if +[^{}]+)?|\/if|end|\/for|for +[^{}]+|[A-Za-z_][\w.-]*)\}/y;
const LIT = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** Cosmos's host names (`{Hostnames.{StaticServiceName}.x.host}`) all mean the app's one host name here. */
const normalise = (text: string): string =>
  text
    .replace(/\{![\s\S]*?!\}/g, '')
    .replace(/\{Hostnames(?:\.(?:\{\w+\}|[\w-]+))*\}/g, '{RootHostname}')
    .replace(/\{StaticServiceName\}/g, '{ServiceName}');

function tokenize(text: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw refuse(`cosmos-compose.json has a string that does not end (at ${i})`);
      const raw = text
        .slice(i + 1, j)
        .replace(/\n/g, '\\n')
        .replace(/\r/g, '\\r')
        .replace(/\t/g, '\\t');
      let s: string;
      try {
        s = JSON.parse(`"${raw}"`) as string;
      } catch {
        throw refuse(`cosmos-compose.json has a string it cannot read (at ${i})`);
      }
      out.push({ k: 'str', s, at: i });
      i = j + 1;
      continue;
    }
    if (c === '{') {
      TAG.lastIndex = i;
      const m = TAG.exec(text);
      if (m?.[1]) {
        out.push({ k: 'tag', tag: m[1].trim(), at: i });
        i += m[0].length;
        continue;
      }
    }
    if ('{}[]:,'.includes(c)) {
      out.push({ k: 'p', c, at: i });
      i++;
      continue;
    }
    LIT.lastIndex = i;
    const m = LIT.exec(text);
    if (!m) throw refuse(`cosmos-compose.json cannot be read at ${i} (${JSON.stringify(text.slice(i, i + 20))})`);
    out.push({ k: 'lit', v: JSON.parse(m[0]) as number | boolean | null, at: i });
    i += m[0].length;
  }
  return out;
}

/** Variables whose value is set whatever the form says (a condition on them is always true). */
const ALWAYS = /^(ServiceName|DefaultDataPath|RootHostname|RootProtocol|Passwords\.\d+)$/;

/** A condition: a constant, or a form value; what cannot be mapped is refused with the reason. */
function condition(expr: string): boolean | WCond {
  const m = /^if +(not +)?([\w.-]+)$/.exec(expr.trim());
  if (!m?.[2]) {
    if (/==|!=|[<>]/.test(expr)) throw refuse('conditional blocks depend on form values in a way Kade cannot express (a comparison)');
    throw refuse(`the condition {${expr}} cannot be mapped`);
  }
  const negate = Boolean(m[1]);
  const name = m[2];
  if (name.startsWith('Context.')) return { ctx: name.slice('Context.'.length), negate };
  if (/^CPU_/.test(name)) throw refuse(`conditional blocks depend on the host's CPU ({${name}})`);
  return ALWAYS.test(name) !== negate;
}

/** The pieces of a string: text, variables and conditional pieces. */
function stringParts(s: string): WPart[] {
  const root: WPart[] = [];
  const stack: { cond: boolean | WCond; yes: WPart[]; no: WPart[]; inNo: boolean }[] = [];
  const target = () => {
    const top = stack.at(-1);
    return top ? (top.inNo ? top.no : top.yes) : root;
  };
  let last = 0;
  const re = new RegExp(TAG.source, 'g');
  for (const m of s.matchAll(re)) {
    const tag = (m[1] ?? '').trim();
    if (m.index > last) target().push({ lit: s.slice(last, m.index) });
    last = m.index + m[0].length;
    if (tag.startsWith('if ')) stack.push({ cond: condition(tag), yes: [], no: [], inNo: false });
    else if (tag === 'else') {
      const top = stack.at(-1);
      if (!top || top.inNo) throw refuse('an {else} without its {if}');
      top.inNo = true;
    } else if (tag === '/if' || tag === 'end') {
      const top = stack.pop();
      if (!top) throw refuse('an {/if} without its {if}');
      if (typeof top.cond === 'boolean') target().push(...(top.cond ? top.yes : top.no));
      else target().push({ when: top.cond, yes: top.yes, no: top.no });
    } else if (tag.startsWith('for ') || tag === '/for' || tag.startsWith('else if')) throw refuse(`{${tag}} blocks are not supported`);
    else target().push({ v: tag });
  }
  if (stack.length) throw refuse('an {if} without its {/if}');
  if (last < s.length) target().push({ lit: s.slice(last) });
  return root;
}

class Parser {
  private i = 0;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok | undefined {
    return this.toks[this.i];
  }

  private fail(what: string): never {
    throw refuse(`cosmos-compose.json: ${what} (at ${this.peek()?.at ?? 'the end'})`);
  }

  private expect(c: string): void {
    const t = this.peek();
    if (t?.k !== 'p' || t.c !== c) this.fail(`expected '${c}'`);
    this.i++;
  }

  value(): WValue {
    const t = this.peek();
    if (!t) this.fail('a value is missing');
    this.i++;
    if (t.k === 'str') return { t: 'str', parts: stringParts(t.s) };
    if (t.k === 'lit') return { t: 'lit', v: t.v };
    if (t.k === 'tag' && t.tag.startsWith('if ')) return this.condValue(condition(t.tag));
    if (t.k === 'tag' && !/^(if |else|\/if|end|for |\/for)/.test(t.tag)) return { t: 'str', parts: [{ v: t.tag }] };
    if (t.k === 'p' && t.c === '{') return { t: 'obj', members: this.list('}', () => this.member()) as WMember[] };
    if (t.k === 'p' && t.c === '[') return { t: 'arr', items: this.list(']', () => this.value()) as WItem[] };
    this.i--;
    return this.fail('unexpected token');
  }

  /** The value of one entry chosen by a block around it; a branch without a value leaves the entry out. */
  private condValue(cond: boolean | WCond): WValue {
    const branch = (): WValue | null => {
      const t = this.peek();
      return t?.k === 'tag' && (t.tag === 'else' || t.tag === '/if' || t.tag === 'end') ? null : this.value();
    };
    const yes = branch();
    let no: WValue | null = null;
    if (this.peek()?.k === 'tag' && (this.peek() as { tag: string }).tag === 'else') {
      this.i++;
      no = branch();
    }
    const end = this.peek();
    if (end?.k !== 'tag' || (end.tag !== '/if' && end.tag !== 'end')) this.fail('a block inside an entry holds one value per branch');
    this.i++;
    if (typeof cond !== 'boolean') return { t: 'cond', when: cond, yes, no };
    const kept = cond ? yes : no;
    return kept ?? { t: 'lit', v: null };
  }

  private member(): WMember {
    const t = this.peek();
    if (t?.k !== 'str') this.fail('expected a key');
    this.i++;
    this.expect(':');
    return { key: stringParts(t.s), value: this.value() };
  }

  /** Entries up to `close`; commas are separators wherever a block put them; blocks hold whole entries. */
  private list<T>(close: string, one: () => T): Cell<T>[] {
    const out = this.block(one);
    if (out.stop !== close) this.fail(out.stop === 'end' ? `'${close}' is missing` : `{${out.stop}} does not close a block of whole entries`);
    this.i++;
    return out.items;
  }

  private block<T>(one: () => T): { items: Cell<T>[]; stop: string } {
    const items: Cell<T>[] = [];
    for (;;) {
      const t = this.peek();
      if (!t) return { items, stop: 'end' };
      if (t.k === 'p' && t.c === ',') {
        this.i++;
        continue;
      }
      if (t.k === 'p' && (t.c === '}' || t.c === ']')) return { items, stop: t.c };
      if (t.k === 'tag' && (t.tag === 'else' || t.tag === '/if' || t.tag === 'end')) return { items, stop: t.tag };
      if (t.k === 'tag' && t.tag.startsWith('if ')) {
        this.i++;
        const cond = condition(t.tag);
        const yes = this.block(one);
        let no: typeof yes = { items: [], stop: yes.stop };
        if (yes.stop === 'else') {
          this.i++;
          no = this.block(one);
        }
        if (no.stop !== '/if' && no.stop !== 'end') this.fail('a conditional block does not enclose whole entries');
        this.i++;
        if (typeof cond === 'boolean') items.push(...(cond ? yes.items : no.items));
        else items.push({ when: cond, yes: yes.items, no: no.items });
        continue;
      }
      if (t.k === 'tag' && (t.tag.startsWith('for ') || t.tag.startsWith('else if'))) this.fail(`{${t.tag}} blocks are not supported`);
      items.push(one());
    }
  }

  done(): void {
    if (this.i < this.toks.length) this.fail('text after the end of the document');
  }
}

/** The template as a tree; refused with the reason when it cannot be read or mapped. */
export function parseCosmos(text: string): Extract<WValue, { t: 'obj' }> {
  const p = new Parser(tokenize(normalise(text)));
  const v = p.value();
  p.done();
  if (v.t !== 'obj') throw refuse('cosmos-compose.json is not an object');
  return v;
}

/** The plain text of parts that hold no form value (keys, names, labels). */
export const plainOf = (parts: WPart[], vars: (name: string) => string): string =>
  parts.map((p) => ('lit' in p ? p.lit : 'v' in p ? vars(p.v) : plainOf(p.yes, vars))).join('');

/**
 * A value that matches a field's pattern, made from the pattern itself, for the check's stand-ins (check.ts): the
 * common part of RE2's syntax (literals, classes, `\d \w \s`, groups, alternatives, quantifiers). Each unbounded
 * quantifier repeats `stretch` times (at least its minimum), so a caller can try longer values for a length rule.
 * Null for syntax this does not read; the caller matches the result with RE2 either way.
 */

type Re = { k: 'lit'; s: string } | { k: 'seq'; items: Re[] } | { k: 'alt'; options: Re[] } | { k: 'rep'; node: Re; min: number; max: number };

const ESCAPE_CLASS: Record<string, { pick: string; has: (c: string) => boolean }> = {
  d: { pick: '0', has: (c) => /[0-9]/.test(c) },
  D: { pick: 'a', has: (c) => !/[0-9]/.test(c) },
  w: { pick: 'a', has: (c) => /\w/.test(c) },
  W: { pick: '-', has: (c) => !/\w/.test(c) },
  s: { pick: ' ', has: (c) => /\s/.test(c) },
  S: { pick: 'a', has: (c) => !/\s/.test(c) },
};
/** Escapes that assert a position and match no character. */
const ASSERTIONS = new Set(['b', 'B', 'A', 'z']);
const OTHER_CHARS = ['a', '0', 'A', 'x', '-', '_', '.', ' '];

class Parser {
  private i = 0;
  constructor(private readonly p: string) {}

  parse(): Re {
    const re = this.alt();
    if (this.i < this.p.length) throw new Error(`unexpected ${this.p[this.i]}`);
    return re;
  }

  private alt(): Re {
    const options = [this.seq()];
    while (this.p[this.i] === '|') {
      this.i++;
      options.push(this.seq());
    }
    return options.length === 1 ? (options[0] as Re) : { k: 'alt', options };
  }

  private seq(): Re {
    const items: Re[] = [];
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') items.push(this.quantified(this.atom()));
    return { k: 'seq', items };
  }

  private quantified(node: Re): Re {
    const c = this.p[this.i];
    let q: [number, number] | null = null;
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      q = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1];
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
      if (!m) return node;
      this.i += m[0].length;
      const min = Number(m[1]);
      q = [min, m[2] === undefined ? min : m[3] ? Number(m[3]) : Infinity];
    }
    if (!q) return node;
    if (this.p[this.i] === '?') this.i++;
    return this.quantified({ k: 'rep', node, min: q[0], max: q[1] });
  }

  private atom(): Re {
    const c = this.p[this.i++] as string;
    if (c === '(') return this.group();
    if (c === '[') return { k: 'lit', s: this.charClass() };
    if (c === '^' || c === '$') return { k: 'lit', s: '' };
    if (c === '.') return { k: 'lit', s: 'a' };
    if (c === '\\') return { k: 'lit', s: this.escape() };
    if ('*+?'.includes(c)) throw new Error(`a quantifier ${c} without anything before it`);
    return { k: 'lit', s: c };
  }

  private group(): Re {
    if (this.p[this.i] === '?') {
      const m = /^\?(P?<[A-Za-z_]\w*>|[a-zA-Z-]*:|[a-zA-Z-]+\))/.exec(this.p.slice(this.i));
      if (!m) throw new Error('a group kind this does not read');
      this.i += m[0].length;
      // `(?i)`: flags only, which change no character this makes.
      if (m[0].endsWith(')')) return { k: 'lit', s: '' };
    }
    const inner = this.alt();
    if (this.p[this.i++] !== ')') throw new Error('an unclosed group');
    return inner;
  }

  private escape(): string {
    const c = this.p[this.i++];
    if (c === undefined) throw new Error('a trailing backslash');
    const cls = ESCAPE_CLASS[c];
    if (cls) return cls.pick;
    if (ASSERTIONS.has(c)) return '';
    if (/[A-Za-z0-9]/.test(c)) throw new Error(`the escape \\${c}`);
    return c;
  }

  /** A class `[...]` (the `[` read): its first character, or for `[^...]` the first common one it leaves out. */
  private charClass(): string {
    const negated = this.p[this.i] === '^';
    if (negated) this.i++;
    const has: ((c: string) => boolean)[] = [];
    let first: string | undefined;
    for (let start = true; start || this.p[this.i] !== ']'; start = false) {
      if (this.i >= this.p.length) throw new Error('an unclosed class');
      const [pick, test] = this.classItem();
      first ??= pick;
      has.push(test);
    }
    this.i++;
    if (!negated) return first as string;
    const other = OTHER_CHARS.find((c) => !has.some((t) => t(c)));
    if (other === undefined) throw new Error('a class that leaves out every common character');
    return other;
  }

  private classItem(): [string, (c: string) => boolean] {
    let c = this.p[this.i++] as string;
    if (c === '[' && this.p[this.i] === ':') throw new Error('a POSIX class');
    if (c === '\\') {
      const e = this.p[this.i++] as string;
      const cls = ESCAPE_CLASS[e];
      if (cls) return [cls.pick, cls.has];
      if (/[A-Za-z0-9]/.test(e)) throw new Error(`the escape \\${e}`);
      c = e;
    }
    if (this.p[this.i] === '-' && this.p[this.i + 1] !== ']' && this.p[this.i + 1] !== undefined) {
      this.i++;
      let end = this.p[this.i++] as string;
      if (end === '\\') end = this.p[this.i++] as string;
      const lo = c;
      return [lo, (x) => x >= lo && x <= end];
    }
    return [c, (x) => x === c];
  }
}

function generate(re: Re, stretch: number): string {
  switch (re.k) {
    case 'lit':
      return re.s;
    case 'seq':
      return re.items.map((x) => generate(x, stretch)).join('');
    case 'alt':
      return generate(re.options[0] as Re, stretch);
    case 'rep': {
      const n = Math.min(Math.max(stretch, re.min), re.max);
      return Array.from({ length: n }, () => generate(re.node, stretch)).join('');
    }
  }
}

/** A value the pattern (matched whole) should accept, or null when its syntax is beyond this reader. */
export function patternExample(pattern: string, stretch = 0): string | null {
  try {
    return generate(new Parser(pattern).parse(), stretch);
  } catch {
    return null;
  }
}

import { parseDocument, visit } from 'yaml';
import { type EnvDialect, rewriteEnvValues } from '../stacks/store/env-file.ts';

/** A folder Kade moves: every path at or below `from` is at the same place below `to` afterwards. */
export interface Move {
  from: string;
  to: string;
}

/**
 * The value after the moves when it starts with a path at or below a moved folder (ended by `/`, the `:` of a
 * volume's `src:dst`, or the end), else null; the deepest `from` wins.
 */
export function movedPath(value: string, moves: readonly Move[]): string | null {
  let best: Move | null = null;
  for (const m of moves) {
    const next = value.charAt(m.from.length);
    if (value.startsWith(m.from) && (next === '' || next === '/' || next === ':') && (best === null || m.from.length > best.from.length)) best = m;
  }
  return best ? best.to + value.slice(best.from.length) : null;
}

/**
 * The compose file with the moved folders: every value that starts with a path below a moved folder (a
 * volume's host side `src:dst[:mode]`, long syntax `source`, env_file, labels...) and `KEY=path` entries of
 * a list-form environment. Only the leading path changes, so a container-side path is never touched.
 * Comments, quoting and order stay; an unchanged file is returned as it was, byte for byte.
 */
export function rewriteCompose(text: string, moves: readonly Move[]): string {
  // Compose reads `$` as the start of a variable: a new folder's `$` is written as `$$`, the literal it is.
  const literal = moves.map((m) => ({ ...m, to: m.to.replace(/\$/g, '$$$$') }));
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return text;
  let changed = false;
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      const assign = /^([A-Za-z_][A-Za-z0-9_]*=)(\/.*)$/s.exec(node.value);
      const moved = assign ? movedPath(assign[2] as string, literal) : movedPath(node.value, literal);
      if (moved === null) return;
      node.value = assign ? `${assign[1]}${moved}` : moved;
      changed = true;
    },
  });
  return changed ? doc.toString() : text;
}

/** The `.env` with every value that is a path below a moved folder changed; other lines byte for byte. */
export function rewriteEnv(text: string, moves: readonly Move[], dialect: EnvDialect): string {
  return rewriteEnvValues(text, (_key, value) => movedPath(value, moves), dialect);
}

/** `.svc.json` with every string that is a path below a moved folder changed (form values, volume hosts), never a volume's container side. */
export function rewriteMeta(text: string, moves: readonly Move[]): string {
  let changed = false;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const moved = movedPath(v, moves);
      if (moved === null) return v;
      changed = true;
      return moved;
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'container' ? x : walk(x)]));
    return v;
  };
  const out = walk(JSON.parse(text) as unknown);
  return changed ? `${JSON.stringify(out, null, 2)}\n` : text;
}

/** Portainer's `env` entries as Kade fields, and the variables of a stack file that name them. */
import type { TemplateFieldT } from '../../../shared/template.ts';
import {
  appdataParts,
  clip,
  displayText,
  fieldIdOf,
  fieldParts,
  hostDefault,
  hostPath,
  hostPowerNote,
  looksSecret,
  plainText,
  refuse,
  secretField,
  subPath,
  textField,
  withDefault,
} from './portainer-common.ts';
import type { Part } from './portainer-emit.ts';

export interface PortainerEnv {
  name: string;
  label?: string;
  description?: string;
  default?: string;
  preset?: boolean;
  select?: { text?: string; value?: string; default?: boolean }[];
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** The `env` list, checked: every entry needs a name a container can take. */
export function envList(raw: unknown): PortainerEnv[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw refuse('env is not a list');
  return raw.map((e: unknown) => {
    const o = (e ?? {}) as Record<string, unknown>;
    if (typeof o.name !== 'string' || !ENV_NAME.test(o.name)) throw refuse(`env entry ${JSON.stringify(o.name ?? null)} has no valid name`);
    return {
      name: o.name,
      ...(typeof o.label === 'string' && o.label.trim() ? { label: o.label.trim() } : {}),
      ...(typeof o.description === 'string' && o.description.trim() ? { description: o.description } : {}),
      ...(o.default !== undefined && o.default !== null ? { default: String(o.default) } : {}),
      ...(o.preset === true || o.preset === 'true' ? { preset: true } : {}),
      ...(Array.isArray(o.select) ? { select: o.select as NonNullable<PortainerEnv['select']> } : {}),
    } as PortainerEnv;
  });
}

/** What a variable is used as in the compose content: a published host port, the start of a bind source. */
export type VarKind = 'port' | 'path';

/** One env entry (or a variable no entry declares) as a field. */
export function envField(e: PortainerEnv, id: string, kind?: VarKind): TemplateFieldT {
  const label = clip(e.label ?? e.name, 500);
  const info = e.description ? { info: displayText(clip(plainText(e.description), 4000)) } : {};
  if (e.select?.length) {
    const options = e.select
      .filter((o) => o.value !== undefined && o.value !== null)
      .map((o) => ({ value: clip(String(o.value), 200), label: displayText(clip(String(o.text ?? o.value) || String(o.value), 500)) || '-' }));
    const chosen = e.select.find((o) => o.default)?.value ?? e.default ?? options[0]?.value;
    return { ...textField(id, label, info), type: 'select', required: true, options, ...(chosen !== undefined ? { default: String(chosen) } : {}) };
  }
  const def = e.default ?? '';
  if (kind === 'port') {
    const n = Number(def);
    return { ...textField(id, label, info), type: 'port', required: true, ...(def && Number.isInteger(n) && n > 0 && n < 65536 ? { default: n } : {}) };
  }
  if (kind === 'path') {
    // A host folder of the source's own machine becomes a folder of the app's data folder.
    const to = def.startsWith('/') ? hostDefault(def) : def.startsWith('.') ? `{data_dir}/${subPath(def)}` : undefined;
    const start = to ? { default: to } : {};
    return { ...textField(id, label, info), type: 'path', ...start };
  }
  const f = looksSecret(e.name) ? secretField(id, label, info) : textField(id, label, info);
  return def ? withDefault(f, def) : f;
}

/** Fields made on demand, once per variable, from the env entries (or for a variable no entry declares). */
export class VarFields {
  readonly fields: TemplateFieldT[] = [];
  readonly undeclared: string[] = [];
  private readonly byName = new Map<string, TemplateFieldT | null>();
  constructor(
    private readonly env: PortainerEnv[],
    private readonly newId: (base: string) => string,
    private readonly kinds: Map<string, VarKind> = new Map(),
  ) {}

  decl(name: string): PortainerEnv | undefined {
    return this.env.find((e) => e.name === name);
  }

  /** The field of a variable, or null for a preset entry (its value is written as it is). */
  field(name: string, fallback?: string): TemplateFieldT | null {
    if (this.byName.has(name)) return this.byName.get(name) ?? null;
    let e = this.decl(name);
    if (!e) {
      this.undeclared.push(name);
      e = { name, ...(fallback ? { default: fallback } : {}) };
    } else if (e.default === undefined && fallback) e = { ...e, default: fallback };
    const f = e.preset ? null : envField(e, this.newId(fieldIdOf(name)), this.kinds.get(name));
    if (f) this.fields.push(f);
    this.byName.set(name, f);
    return f;
  }
}

/** A `$` compose would refuse (`$?`, `5$`) or read as the start of a variable: doubled, it stays text. */
const loneDollars = (s: string): string => s.replace(/\$/g, '$$$$');

const VAR = /\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * A string of a stack file with compose's variables (`${X}`, `${X:-d}`, `${X:+alt}`, `$X`) as placeholders of their
 * fields; `$$` and other text stay as compose reads them, a `$` that starts no variable (`$?` of a shell) is escaped.
 * A preset entry's value is written as it is.
 */
export function stackParts(s: string, vars: VarFields): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const m of s.matchAll(VAR)) {
    if (m.index > last) parts.push({ lit: loneDollars(s.slice(last, m.index)) });
    last = m.index + m[0].length;
    if (m[1]) {
      parts.push({ lit: '$$' });
      continue;
    }
    const name = (m[2] ?? m[5]) as string;
    const op = m[3] ?? '';
    const arg = m[4] ?? '';
    const f = vars.field(name, op.endsWith('-') ? arg : undefined);
    if (!f) {
      const e = vars.decl(name);
      const v = e?.default || (op.endsWith('-') ? arg : '');
      parts.push({ lit: op.endsWith('+') ? (e?.default ? arg : '') : v.replace(/\$/g, '$$$$') });
      continue;
    }
    if (op.endsWith('?')) f.required = true;
    if (op.endsWith('+')) parts.push({ when: { field: f.id, negate: false }, parts: [{ lit: arg }] });
    else if (op.endsWith('-') && arg && f.default === undefined) {
      parts.push({ when: { field: f.id, negate: false }, parts: [{ field: f.id }] }, { when: { field: f.id, negate: true }, parts: [{ lit: arg }] });
    } else parts.push(...fieldParts(f));
  }
  if (last < s.length) parts.push({ lit: loneDollars(s.slice(last)) });
  return parts;
}

/** The variable a string starts with (`${DATA}/x`, `$PORT`), for telling what it is used as. */
export const leadingVar = (s: string): string | null => /^\$\{?([A-Za-z_][A-Za-z0-9_]*)/.exec(s)?.[1] ?? null;

/**
 * The data-folder parts for a host folder of the source bound with that mode (the host's own places as they are,
 * noted), or null when it is dropped (the time files).
 */
export function dataParts(source: string, notes: Set<string>, readOnly: boolean): Part[] | null {
  const at = hostPath(source, readOnly);
  if (at === 'drop') return null;
  if ('sub' in at) return appdataParts(at.sub);
  notes.add(hostPowerNote(at.host));
  return [{ lit: at.host }];
}

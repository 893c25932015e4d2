/**
 * Cosmos servapps (a folder with cosmos-compose.json and description.json) as Kade apps. The whiskers template is
 * mapped without rendering it: form values become placeholders, `{if Context.x}` blocks become sections,
 * `{Passwords.N}` generated secret fields, `{ServiceName}` the app id; Cosmos's own proxy routes become published
 * ports and its `cosmos-*` labels are dropped.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSafeName } from '../../../shared/names.ts';
import type { TemplateFieldT, TemplateFileT } from '../../../shared/template.ts';
import { categoriesOf } from '../derive-categories.ts';
import { readForm } from './cosmos-form.ts';
import { type CosmosMapper, mapServices } from './cosmos-services.ts';
import { parseCosmos, plainOf, type WCond, type WItem, type WMember, type WPart, type WValue } from './cosmos-whiskers.ts';
import {
  APPDATA_FIELD,
  clip,
  fieldParts,
  hostDefault,
  idAllocator,
  parseMapped,
  plainText,
  refuse,
  secretField,
  slug,
  textField,
  versionOf,
} from './portainer-common.ts';
import { type Cond, dollarSafe, type Entry, emitCompose, type Item, lit, map, type Node, type Part, seq, text } from './portainer-emit.ts';
import type { AppFolderImporter, ImportedApp } from './types.ts';

const MAX_BYTES = 256 * 1024;

function readJson(path: string, what: string): unknown {
  if (!existsSync(path)) return undefined;
  if (!lstatSync(path).isFile() || lstatSync(path).size > MAX_BYTES) throw refuse(`${what} is not a file of at most 256 KiB`);
  return readFileSync(path, 'utf8');
}

/** Turns the whiskers tree into a compose tree, making the fields its variables need on the way. */
class Converter implements CosmosMapper {
  readonly notes = new Set<string>();
  readonly extra: TemplateFieldT[] = [];
  private readonly made = new Map<string, TemplateFieldT>();
  constructor(
    readonly id: string,
    readonly form: Map<string, TemplateFieldT>,
    readonly newId: (base: string) => string,
  ) {}

  /** A field Kade makes for a Cosmos variable (generated passwords, the data folder, the host name). */
  private own(name: string, make: () => TemplateFieldT): TemplateFieldT {
    const known = this.made.get(name);
    if (known) return known;
    const f = make();
    this.made.set(name, f);
    this.extra.push(f);
    return f;
  }

  fieldOfVar(name: string): TemplateFieldT | null {
    if (name.startsWith('Context.')) return this.form.get(name.slice('Context.'.length)) ?? null;
    const pw = /^Passwords\.(\d+)$/.exec(name);
    if (pw) {
      const n = Number(pw[1]) + 1;
      return this.own(name, () =>
        secretField(this.newId(`password_${pw[1]}`), 'x', { label: { en: `Generated password ${n}`, nl: `Gegenereerd wachtwoord ${n}` }, generate: true }),
      );
    }
    if (name === 'DefaultDataPath') return this.own(name, () => APPDATA_FIELD);
    if (name === 'RootHostname') {
      return this.own(name, () =>
        textField(this.newId('hostname'), 'x', {
          label: { en: 'Host name the app is reached at', nl: 'Hostnaam waarop de app bereikbaar is' },
          default: 'localhost',
          required: true,
        }),
      );
    }
    return null;
  }

  dataFolder(): void {
    this.fieldOfVar('DefaultDataPath');
  }

  retype(fieldId: string, type: 'path' | 'port'): void {
    for (const f of this.form.values()) {
      if (f.id !== fieldId || f.type !== 'text') continue;
      f.type = type;
      if (type === 'port') f.default = typeof f.default === 'string' && /^\d+$/.test(f.default) ? Number(f.default) : undefined;
      // A host folder of the source's machine (`/var/lib/movies`) starts in the app's data folder instead.
      if (type === 'path' && typeof f.default === 'string' && f.default.startsWith('/')) {
        f.default = hostDefault(f.default);
        this.notes.add('host folders of the form start in the data folder');
      }
      if (f.default === undefined) delete f.default;
    }
  }

  cond(c: WCond): Cond | boolean {
    // `{if Context.db-name}`: whether the picker `db` chose a container.
    const f = this.form.get(c.ctx) ?? this.form.get(c.ctx.replace(/-name$/, ''));
    return f ? { field: f.id, negate: c.negate } : c.negate;
  }

  /** The connect fields the compose file uses: their services reach the other app through the host. */
  readonly connects = new Set<string>();

  /**
   * `{Context.<field>-name}`: the container a picker chose. A connect field's host stands for it, and its port for
   * the port written right after it (`{Context.db-name}:5432`); a typed name stands as it is.
   */
  private containerRef(name: string): Part[] | null {
    const m = /^Context\.(.+)-name$/.exec(name);
    const f = m?.[1] ? this.form.get(m[1]) : undefined;
    if (!f || this.form.has(name.slice('Context.'.length))) return null;
    if (!f.connect) return fieldParts(f);
    this.connects.add(f.id);
    return [{ field: `${f.id}_host` }];
  }

  parts(list: WPart[]): Part[] {
    return withConnectPorts(this.rawParts(list), this.connects);
  }

  private rawParts(list: WPart[]): Part[] {
    return list.flatMap((p): Part[] => {
      if ('lit' in p) return [{ lit: dollarSafe(p.lit) }];
      if ('v' in p) {
        if (p.v === 'ServiceName') return [{ lit: this.id }];
        if (p.v === 'RootProtocol') return [{ lit: 'http' }];
        if (/^CPU_/.test(p.v)) throw refuse(`uses {${p.v}}, the host's CPU, which Kade does not fill in`);
        const ref = this.containerRef(p.v);
        if (ref) return ref;
        const f = this.fieldOfVar(p.v);
        return f ? fieldParts(f) : [];
      }
      const c = this.cond(p.when);
      if (typeof c === 'boolean') return this.rawParts(c ? p.yes : p.no);
      const out: Part[] = [];
      if (p.yes.length) out.push({ when: c, parts: this.rawParts(p.yes) });
      if (p.no.length) out.push({ when: { ...c, negate: !c.negate }, parts: this.rawParts(p.no) });
      return out;
    });
  }

  key(list: WPart[]): string {
    if (list.some((p) => 'when' in p)) throw refuse('a key holds a conditional block: keys cannot depend on form values');
    return plainOf(list, (v) => {
      if (v === 'ServiceName') return this.id;
      throw refuse(`a key holds {${v}}: keys cannot depend on form values`);
    });
  }

  value(v: WValue): Node {
    if (v.t === 'lit') return lit(v.v);
    if (v.t === 'str') {
      const parts = this.parts(v.parts);
      return parts.every((p) => 'lit' in p) ? lit(parts.map((p) => (p as { lit: string }).lit).join('')) : text(parts);
    }
    if (v.t === 'arr') return seq(this.items(v.items));
    if (v.t === 'cond') throw refuse('a conditional block stands where one value must be');
    return map(this.members(v.members));
  }

  /** A value a block chooses (`{if Context.x} "a" {else} "b" {/if}`) as a section per branch; null for no value. */
  private chosen<T>(v: Extract<WValue, { t: 'cond' }>, wrap: (n: Node) => T): T | { cond: Cond; yes: T[]; no: T[] } | null {
    const c = this.cond(v.when);
    const branch = (b: WValue | null): T[] =>
      b === null ? [] : b.t === 'cond' ? ([this.chosen(b, wrap)].filter((x) => x !== null) as T[]) : [wrap(this.value(b))];
    if (typeof c === 'boolean') return (c ? branch(v.yes) : branch(v.no))[0] ?? null;
    return { cond: c, yes: branch(v.yes), no: branch(v.no) };
  }

  items(list: WItem[]): Item[] {
    return list.flatMap((i): Item[] => {
      if ('t' in i && i.t === 'cond') return [this.chosen<Item>(i, (n) => n)].filter((x): x is Item => x !== null);
      if ('t' in i) return [this.value(i)];
      const c = this.cond(i.when);
      if (typeof c === 'boolean') return this.items(c ? i.yes : i.no);
      return [{ cond: c, yes: this.items(i.yes), no: this.items(i.no) }];
    });
  }

  members(list: WMember[]): Entry[] {
    return list.flatMap((m): Entry[] => {
      if ('key' in m && m.value.t === 'cond') {
        const key = this.key(m.key);
        const e = this.chosen<Entry>(m.value, (value) => ({ key, value }));
        return e === null ? [] : [e];
      }
      if ('key' in m) return [{ key: this.key(m.key), value: this.value(m.value) }];
      const c = this.cond(m.when);
      if (typeof c === 'boolean') return this.members(c ? m.yes : m.no);
      return [{ cond: c, yes: this.members(m.yes), no: this.members(m.no) }];
    });
  }
}

/** A connect field's host followed by a literal port (`{{db_host}}:5432`): the port is the connect field's too. */
function withConnectPorts(parts: Part[], connects: ReadonlySet<string>): Part[] {
  const out: Part[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i] as Part;
    const next = parts[i + 1];
    const port = next && 'lit' in next ? /^:\d{1,5}(?!\d)/.exec(next.lit) : null;
    out.push(p);
    if (!('field' in p) || !connects.has(p.field.replace(/_host$/, '')) || !p.field.endsWith('_host') || !port || !next || !('lit' in next)) continue;
    out.push({ lit: ':' }, { field: `${p.field.slice(0, -'_host'.length)}_port` }, { lit: next.lit.slice(port[0].length) });
    i++;
  }
  return out.filter((p) => !('lit' in p) || p.lit !== '');
}

interface Description {
  name?: string;
  description?: string;
  longDescription?: string;
  tags?: unknown;
  translation?: { nl?: { description?: string } };
}

function describe(dir: string, id: string, messages: string[]) {
  const raw = readJson(join(dir, 'description.json'), 'description.json');
  let d: Description = {};
  try {
    d = raw === undefined ? {} : (JSON.parse(raw as string) as Description);
  } catch {
    throw refuse('description.json is not valid JSON');
  }
  const tags = Array.isArray(d.tags) ? d.tags.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => clip(t.trim(), 40)) : [];
  const en = clip([plainText(d.description ?? ''), ...messages].filter(Boolean).join('\n\n'), 4000);
  const nlText = d.translation?.nl?.description ? clip([plainText(d.translation.nl.description), ...messages].join('\n\n'), 4000) : '';
  return {
    name: clip(typeof d.name === 'string' && d.name.trim() ? d.name.trim() : id, 100),
    description: nlText ? { en, nl: nlText } : en,
    tags: [...new Set(tags)].slice(0, 30),
    categories: categoriesOf([], tags, `${d.name ?? ''} ${en} ${plainText(d.longDescription ?? '')}`),
  };
}

/** One servapp folder as a Kade app, or a refusal with the reason. */
export function importCosmos(dir: string, folder: string): ImportedApp {
  // Cosmos folders are named like `AdGuardHome`; an app id is lower case.
  const id = isSafeName(folder) ? folder : slug(folder);
  const text = readJson(join(dir, 'cosmos-compose.json'), 'cosmos-compose.json');
  if (typeof text !== 'string') throw refuse('has no cosmos-compose.json');
  const root = parseCosmos(text);
  const newId = idAllocator('_', ['appdata_dir']);
  const form = readForm(root, id, newId);
  const conv = new Converter(id, form.fields, newId);
  for (const n of form.notes) conv.notes.add(n);
  const topMembers = root.members.filter((m) => !('key' in m) || !['cosmos-installer', 'minVersion', 'version'].includes(conv.key(m.key)));
  const tree = map(conv.members(topMembers)) as Extract<Node, { k: 'map' }>;
  const mapped = mapServices(tree, conv);
  const compose = emitCompose(tree);
  const fields = [...mapped.ports, ...form.fields.values(), ...conv.extra];
  // Generated passwords stay behind the advanced switch when the app has other fields to show.
  const visible = fields.some((f) => !f.secret || f.generate !== true);
  const info = describe(dir, id, form.messages);
  const raw: Omit<TemplateFileT, 'format' | 'groups'> = {
    name: info.name,
    description: info.description,
    version: versionOf(mapped.image),
    ...(mapped.icon ? { icon: mapped.icon } : {}),
    tags: info.tags,
    metadata: { categories: info.categories },
    ...(mapped.web ? { web: mapped.web } : {}),
    fields: fields.map((f) => (visible && f.secret && f.generate === true && /^password_\d+$/.test(f.id) ? { ...f, advanced: true } : f)),
  };
  return { id, template: parseMapped(raw), compose, notes: [...conv.notes] };
}

export const cosmosImporter: AppFolderImporter = {
  format: 'cosmos',
  detect: (dir) => existsSync(join(dir, 'cosmos-compose.json')),
  importApp: importCosmos,
};

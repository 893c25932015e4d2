/**
 * A source store's compose file as a compose template in Kade's syntax, for the Runtipi and CasaOS importers.
 * Every source string is written escaped (portainer-emit.ts), so no `{{` of the source is ever a tag; the only
 * placeholders are those for the variables the importer mapped. Host ports become port fields, bind sources go
 * below the app's data folder, and each importer says what its platform variables are.
 */
import type { TemplateFieldT } from '../../../shared/template.ts';
import {
  displayText,
  fieldIdOf,
  fieldParts,
  hostPath,
  hostPowerNote,
  idAllocator,
  looksSecret,
  parsePort,
  portItem,
  readOnlyFlag,
  readOnlyMode,
  refuse,
  secretField,
  textField,
  withDefault,
} from './portainer-common.ts';
import { type Entry, type Item, lit, map, type Node, type Part, seq, text } from './portainer-emit.ts';

type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const VAR = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+=])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** The variables a string refers to. */
export const varsOf = (s: string): string[] => [...s.matchAll(VAR)].map((m) => m[1] ?? m[4] ?? '').filter(Boolean);

/**
 * The text between variables: a `$` there is none compose could read as a variable (`$?` of a shell, `5$`), and
 * compose would refuse or interpolate it; escaped, it reaches the container as written.
 */
const loneDollars = (s: string): string => s.replace(/\$/g, '$$$$');

/** Literal parts merged, so a string without mapped variables stays one literal. */
function pushLit(parts: Part[], s: string) {
  if (!s) return;
  const last = parts[parts.length - 1];
  if (last && 'lit' in last) last.lit += s;
  else parts.push({ lit: s });
}

/**
 * What the platform of the source store puts into its variables: parts of Kade's template (a field, a literal),
 * or null for a variable the importer turns into a field of its own (see `Vars`).
 */
export type Platform = (name: string) => Part[] | null;

/** The fields made while converting, and the ids they took. */
export class Vars {
  readonly fields: TemplateFieldT[] = [];
  readonly notes = new Set<string>();
  /** Files the app's folder holds beside its compose file (path relative to it → text): the source's inline configs. */
  readonly files = new Map<string, string>();
  private readonly byVar = new Map<string, string>();
  readonly allocate = idAllocator('_', ['appdata_dir']);
  constructor(
    private readonly platform: Platform,
    /** Fields the source declares for variables (Runtipi's form), by variable name. */
    private readonly declared: Map<string, TemplateFieldT> = new Map(),
  ) {}

  add(f: TemplateFieldT): TemplateFieldT {
    if (!this.fields.some((x) => x.id === f.id)) this.fields.push(f);
    return f;
  }

  /** A variable's parts: the platform's, a declared field, or a new field (a default from `${X:-default}`). */
  resolve(name: string, fallback: string | undefined): Part[] {
    const p = this.platform(name);
    if (p) return p;
    const d = this.declared.get(name);
    if (d) return fieldParts(this.add(d));
    let id = this.byVar.get(name);
    if (id === undefined) {
      id = this.allocate(fieldIdOf(name));
      this.byVar.set(name, id);
      const env = /^[A-Z][A-Z0-9_]{0,62}$/.test(name) ? { env: name } : {};
      const f = looksSecret(name) ? secretField(id, name, env) : textField(id, name);
      this.add(fallback ? withDefault(f, fallback) : f);
      this.notes.add(`variable ${name} became the field ${id}`);
    }
    const f = this.fields.find((x) => x.id === id);
    return f ? fieldParts(f) : [{ field: id }];
  }

  /** A source string with its variables mapped; `$$` stays as compose's own escape, any other `$` becomes one. */
  parts(s: string): Part[] {
    const parts: Part[] = [];
    let at = 0;
    for (const m of s.matchAll(VAR)) {
      pushLit(parts, loneDollars(s.slice(at, m.index)));
      at = (m.index ?? 0) + m[0].length;
      if (m[0] === '$$') {
        pushLit(parts, '$$');
        continue;
      }
      const name = (m[1] ?? m[4]) as string;
      const op = m[2];
      const arg = m[3];
      if (op !== undefined && op !== ':-' && op !== '-') {
        // `${X:?msg}` and `${X:+alt}`: the value itself (or nothing) is the closest Kade can say.
        for (const p of this.resolve(name, undefined)) parts.push(p);
        continue;
      }
      for (const p of this.resolve(name, arg)) {
        if ('lit' in p) pushLit(parts, p.lit);
        else parts.push(p);
      }
    }
    pushLit(parts, loneDollars(s.slice(at)));
    return parts;
  }

  node(s: string): Node {
    const parts = this.parts(s);
    if (parts.length === 0) return lit('');
    if (parts.length === 1 && parts[0] && 'lit' in parts[0]) return lit(parts[0].lit);
    return text(parts);
  }
}

/** A plain value with every string through `vars`. */
export function plain(v: unknown, vars: Vars): Node {
  if (typeof v === 'string') return vars.node(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) return lit(v ?? null);
  if (Array.isArray(v)) return seq(v.map((x) => plain(x, vars)));
  return map(Object.entries(v as Obj).map(([key, value]) => ({ key, value: plain(value, vars) })));
}

export interface ComposeRules {
  vars: Vars;
  /** Where a bind source goes (`readOnly`: the bind's mode): parts of the new source, 'drop' for a mount Kade provides itself. */
  bindSource(source: string, readOnly: boolean): Part[] | 'drop';
  /** Labels of the store's own proxy and manager, dropped. */
  dropLabel(key: string): boolean;
  /** Networks of the store itself, dropped from services and the top level. */
  dropNetwork(name: string): boolean;
  /** A label for the port field of a container port. */
  portLabel(service: string, container: string): TemplateFieldT['label'];
  /** Service keys the store added for itself (x-casaos, x-runtipi). */
  dropServiceKey(key: string): boolean;
}

const isBindSource = (s: string) => s.startsWith('/') || s.startsWith('$') || s.startsWith('.') || s.startsWith('~');

function volumeItem(v: unknown, rules: ComposeRules): Item | null {
  if (typeof v === 'string') {
    const i = v.indexOf(':');
    const source = i < 0 ? '' : v.slice(0, i);
    if (i < 0 || !isBindSource(source)) return rules.vars.node(v);
    const to = rules.bindSource(source, readOnlyMode(v.slice(i + 1).split(':')[1]));
    if (to === 'drop') return null;
    return text([...to, ...rules.vars.parts(v.slice(i))]);
  }
  if (isObj(v) && v.type === 'bind' && typeof v.source === 'string') {
    const to = rules.bindSource(v.source, readOnlyFlag(v.read_only));
    if (to === 'drop') return null;
    const entries: Entry[] = Object.entries(v).map(([key, value]) => ({
      key,
      value: key === 'source' ? text(to) : plain(key === 'bind' ? bindOptions(value, rules) : value, rules.vars),
    }));
    return map(entries);
  }
  return plain(v, rules.vars);
}

/** `create_host_path` is compose v2's default already and unknown to v1, which creates the folder anyway. */
function bindOptions(b: unknown, rules: ComposeRules): unknown {
  if (!isObj(b) || !('create_host_path' in b)) return b;
  rules.vars.notes.add('bind option create_host_path dropped (compose creates the folder)');
  const { create_host_path: _, ...rest } = b;
  return rest;
}

/** depends_on's long form as compose v1 and v2 both read it: the condition only (restart and required dropped). */
function dependsOn(d: unknown, rules: ComposeRules): Node {
  if (!isObj(d)) return plain(d, rules.vars);
  return map(
    Object.entries(d).map(([key, value]) => {
      if (!isObj(value) || Object.keys(value).every((k) => k === 'condition')) return { key, value: plain(value, rules.vars) };
      rules.vars.notes.add(`depends_on of ${key}: only the condition is kept`);
      return { key, value: plain(value.condition === undefined ? {} : { condition: value.condition }, rules.vars) };
    }),
  );
}

/** `start_interval` is compose v2's alone (v1 refuses the file): without it the checks run at `interval` from the start. */
function healthcheck(h: unknown, rules: ComposeRules): Node {
  if (!isObj(h) || !('start_interval' in h)) return plain(h, rules.vars);
  rules.vars.notes.add('healthcheck start_interval dropped (compose v1 does not know it)');
  const { start_interval: _, ...rest } = h;
  return plain(rest, rules.vars);
}

/** The folder of an app's inline configs, beside its compose file. */
export const CONFIGS_DIR = 'configs';

/**
 * Top-level `configs` whose `content` is inline as files of the app's folder (compose v2 alone reads inline
 * content, and compose v1 ignores `configs` altogether): their names → the file, relative to the compose file. The
 * text is the file's as v2 would write it (`$$` is a `$`); a variable in it would need a value no file can take, so
 * such an app is refused with the reason.
 */
function inlineConfigs(v: unknown, rules: ComposeRules): Map<string, string> {
  const out = new Map<string, string>();
  if (!isObj(v)) return out;
  for (const [name, def] of Object.entries(v)) {
    if (!isObj(def) || typeof def.content !== 'string') continue;
    const used = varsOf(def.content);
    if (used.length > 0) throw refuse(`configs.${name}.content uses variables (${used.join(', ')}), which a config file cannot fill in`);
    const file = `${CONFIGS_DIR}/${name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || 'config'}`;
    if (rules.vars.files.has(file)) throw refuse(`configs.${name} has the same file name as another config`);
    rules.vars.files.set(file, def.content.replace(/\$\$/g, '$'));
    rules.vars.notes.add(`inline config ${name} written as the file ./${file}, mounted read-only (compose v1 reads no configs)`);
    out.set(name, file);
  }
  return out;
}

/** The files of an imported app's folder, for `ImportedApp.files` (none: no key). */
export const filesOf = (vars: Vars): { files?: Record<string, string> } => (vars.files.size ? { files: Object.fromEntries(vars.files) } : {});

/** A service's `configs` entries of inline configs as read-only binds of their files (the target compose would use). */
function configMounts(list: unknown, inline: ReadonlyMap<string, string>): { mounts: string[]; rest: unknown[] } {
  const mounts: string[] = [];
  const rest: unknown[] = [];
  for (const c of Array.isArray(list) ? list : []) {
    const source = typeof c === 'string' ? c : isObj(c) && typeof c.source === 'string' ? c.source : undefined;
    const file = source === undefined ? undefined : inline.get(source);
    if (file === undefined || source === undefined) {
      rest.push(c);
      continue;
    }
    const target = isObj(c) && typeof c.target === 'string' && c.target ? c.target : `/${source}`;
    mounts.push(`./${file}:${target}:ro`);
  }
  return { mounts, rest };
}

function portField(rules: ComposeRules, service: string, container: string, host: string | undefined) {
  const id = rules.vars.allocate(`port_${container.replace(/\D+/g, '_')}`);
  return { id, label: rules.portLabel(service, container), host };
}

/** A published port: a literal host port becomes a port field; a port through a variable keeps its variable. */
function portEntry(p: unknown, rules: ComposeRules, service: string): Item {
  if (typeof p === 'number') return lit(p);
  if (typeof p === 'string') {
    if (p.includes('$')) return rules.vars.node(p);
    const spec = parsePort(p);
    if (!spec || spec.host?.includes('-')) return lit(p);
    const f = portField(rules, service, spec.container, spec.host);
    const { field, item } = portItem(spec, f.id, f.label);
    rules.vars.add(field);
    return item;
  }
  if (isObj(p) && p.target !== undefined) {
    const published = p.published === undefined ? undefined : String(p.published);
    // A published port through a variable or a range stays as the source wrote it.
    if (published !== undefined && !/^\d+$/.test(published)) return plain(p, rules.vars);
    const f = portField(rules, service, String(p.target), published);
    rules.vars.add({
      id: f.id,
      label: f.label,
      type: 'port',
      required: published !== undefined,
      secret: false,
      advanced: false,
      ...(published !== undefined ? { default: Number(published) } : {}),
    });
    const entries: Entry[] = Object.entries(p)
      .filter(([k]) => k !== 'published')
      .map(([key, value]) => ({ key, value: plain(value, rules.vars) }));
    // Without a published port the engine picks one; an empty field keeps it so.
    entries.push({ cond: { field: f.id, negate: false }, yes: [{ key: 'published', value: text([{ field: f.id }]) }], no: [] });
    return map(entries);
  }
  return plain(p, rules.vars);
}

function environment(env: unknown, rules: ComposeRules): Node {
  // Kade sets TZ in every service itself (the host's timezone): the store's `TZ=$TZ` is that same thing.
  const isOwnTz = (k: string, v: unknown) => k === 'TZ' && typeof v === 'string' && /^\$\{?TZ\}?$/.test(v.trim());
  if (Array.isArray(env)) {
    const items = env.filter((e) => {
      const s = String(e);
      const i = s.indexOf('=');
      return !(i > 0 && isOwnTz(s.slice(0, i), s.slice(i + 1)));
    });
    return seq(items.map((e) => plain(typeof e === 'string' ? e : String(e), rules.vars)));
  }
  if (isObj(env)) {
    return map(
      Object.entries(env)
        .filter(([k, v]) => !isOwnTz(k, v))
        // A container's environment is text: `LOG_EVENTS: true` means the string "true" (compose refuses the boolean).
        .map(([key, value]) => ({ key, value: value === null ? lit(null) : plain(isObj(value) || Array.isArray(value) ? value : String(value), rules.vars) })),
    );
  }
  return plain(env, rules.vars);
}

/**
 * A list or map of a service without the entries `drop` names (an item of a list is named by `nameOf`), `note`
 * said when any was left out; null when none is left.
 */
function without(v: unknown, rules: ComposeRules, drop: (name: string) => boolean, nameOf: (item: unknown) => string, note: string): Node | null {
  if (Array.isArray(v)) {
    const kept = v.filter((e) => !drop(nameOf(e)));
    if (kept.length < v.length) rules.vars.notes.add(note);
    return kept.length ? plain(kept, rules.vars) : null;
  }
  if (isObj(v)) {
    const kept = Object.entries(v).filter(([k]) => !drop(k));
    if (kept.length < Object.keys(v).length) rules.vars.notes.add(note);
    return kept.length ? map(kept.map(([key, value]) => ({ key, value: plain(value, rules.vars) }))) : null;
  }
  return plain(v, rules.vars);
}

function labels(l: unknown, rules: ComposeRules): Node | null {
  const key = (item: unknown) => String(item).split('=')[0] ?? '';
  return without(l, rules, (k) => rules.dropLabel(k), key, 'labels of the store\u2019s proxy dropped');
}

function networks(n: unknown, rules: ComposeRules): Node | null {
  return without(n, rules, (k) => rules.dropNetwork(k), String, 'the store\u2019s own network dropped');
}

function service(name: string, svc: Obj, rules: ComposeRules, inline: ReadonlyMap<string, string>): Node {
  const entries: Entry[] = [];
  const { mounts, rest } = configMounts(svc.configs, inline);
  for (const [key, value] of Object.entries(svc)) {
    if (key === 'configs' && Array.isArray(value)) {
      if (rest.length) entries.push({ key, value: plain(rest, rules.vars) });
      continue;
    }
    if (rules.dropServiceKey(key)) continue;
    // A second install of the app would collide on it; the service name resolves the same inside the app's network.
    if (key === 'container_name' && value === name) {
      rules.vars.notes.add('container_name dropped (Kade names containers per install)');
      continue;
    }
    let node: Node | null;
    if (key === 'volumes' && Array.isArray(value)) {
      const items = value.map((v) => volumeItem(v, rules)).filter((x): x is Item => x !== null);
      node = items.length ? seq(items) : null;
    } else if (key === 'ports' && Array.isArray(value)) node = seq(value.map((p) => portEntry(p, rules, name)));
    else if (key === 'environment') node = environment(value, rules);
    else if (key === 'labels') node = labels(value, rules);
    else if (key === 'networks') node = networks(value, rules);
    else if (key === 'depends_on') node = dependsOn(value, rules);
    else if (key === 'healthcheck') node = healthcheck(value, rules);
    else if ((key === 'command' || key === 'entrypoint') && Array.isArray(value))
      node = plain(
        value.map((x) => (isObj(x) ? x : String(x))),
        rules.vars,
      );
    else node = plain(value, rules.vars);
    if (node) entries.push({ key, value: node });
  }
  if (mounts.length) addMounts(entries, mounts);
  return map(entries);
}

function addMounts(entries: Entry[], mounts: string[]): void {
  const volumes = entries.find((e): e is Extract<Entry, { key: string }> => 'key' in e && e.key === 'volumes');
  if (volumes?.value.k === 'seq') volumes.value.items.push(...mounts.map((m) => lit(m)));
  else entries.push({ key: 'volumes', value: seq(mounts.map((m) => lit(m))) });
}

/** The compose document as a template tree: top-level `name` and `x-*` dropped (Kade names the project). */
export function convertCompose(doc: Obj, rules: ComposeRules): Extract<Node, { k: 'map' }> {
  if (!isObj(doc.services) || Object.keys(doc.services).length === 0) throw refuse('the compose file has no services');
  const entries: Entry[] = [];
  const inline = inlineConfigs(doc.configs, rules);
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'name' || key === 'version' || key.startsWith('x-')) continue;
    if (key === 'services') {
      const svcs = Object.entries(value as Obj).map(([n, s]) => {
        if (!isObj(s)) throw refuse(`service ${n} is not a mapping`);
        return { key: n, value: service(n, s, rules, inline) };
      });
      entries.push({ key, value: map(svcs) });
    } else if (key === 'networks') {
      const n = networks(value, rules);
      if (n) entries.push({ key, value: n });
    } else if (key === 'configs' && isObj(value)) {
      const kept = Object.fromEntries(Object.entries(value).filter(([n]) => !inline.has(n)));
      if (Object.keys(kept).length) entries.push({ key, value: plain(kept, rules.vars) });
    } else entries.push({ key, value: plain(value, rules.vars) });
  }
  return map(entries) as Extract<Node, { k: 'map' }>;
}

/** A bind source outside the store's data folder: below the app's data folder, or as it is for the host's own places (engine socket, /etc…). */
export function otherHostPath(source: string, vars: Vars, readOnly: boolean): Part[] | 'drop' {
  if (source.includes('$')) return vars.parts(source);
  const to = hostPath(source, readOnly);
  if (to === 'drop') {
    vars.notes.add('host time files dropped (Kade sets TZ)');
    return 'drop';
  }
  if ('host' in to) {
    vars.notes.add(hostPowerNote(to.host));
    return [{ lit: to.host }];
  }
  vars.notes.add(`host path ${source} moved below the app's data folder`);
  return [{ field: 'appdata_dir' }, { lit: `/${to.sub}` }];
}

export { displayText };

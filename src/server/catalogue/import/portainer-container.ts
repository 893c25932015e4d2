/** A Portainer type 1 template's container as a compose service: each part of the template in its own step. */
import type { TemplateFieldT } from '../../../shared/template.ts';
import { appdataParts, fieldIdOf, fieldParts, idAllocator, OWNER_LABEL, type PortSpec, parsePort, portItem, refuse, subPath } from './portainer-common.ts';
import { dollarSafe, type Entry, type Item, lit, map, type Node, seq, text } from './portainer-emit.ts';
import { dataParts, envField, envList } from './portainer-fields.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** Literal text of the source: Portainer hands it to the engine as it is, so compose must not interpolate it. */
const s = (v: string): Node => lit(dollarSafe(v));

const portLabel = (p: PortSpec) => ({
  en: `Host port for ${p.container}/${p.proto ?? 'tcp'}`,
  nl: `Hostpoort voor ${p.container}/${p.proto ?? 'tcp'}`,
});

/** Port fields: `port` for the first, `port_<container>` for the others; `specs` keeps what each publishes. */
export function portMaker(newId: (base: string) => string, fields: TemplateFieldT[], specs: Map<string, PortSpec>) {
  return (spec: PortSpec): Item => {
    const base = fields.some((f) => f.type === 'port') ? `port_${spec.container}${spec.proto === 'udp' ? '_udp' : ''}` : 'port';
    const { field, item } = portItem(spec, newId(base), portLabel(spec));
    fields.push(field);
    specs.set(field.id, spec);
    return item;
  };
}

export interface ContainerBuild {
  fields: TemplateFieldT[];
  notes: Set<string>;
  specs: Map<string, PortSpec>;
  /** Named volumes the service uses (declared at the top level). */
  named: Set<string>;
  newId: (base: string) => string;
  port: (spec: PortSpec) => Item;
}

export function containerBuild(): ContainerBuild {
  const fields: TemplateFieldT[] = [];
  const specs = new Map<string, PortSpec>();
  const newId = idAllocator('_', ['appdata_dir']);
  return { fields, notes: new Set(), specs, named: new Set(), newId, port: portMaker(newId, fields, specs) };
}

function basics(t: Obj, image: string, b: ContainerBuild): Entry[] {
  const out: Entry[] = [{ key: 'image', value: s(image) }];
  out.push({ key: 'restart', value: s(typeof t.restart_policy === 'string' && t.restart_policy ? t.restart_policy : 'always') });
  if (typeof t.command === 'string' && t.command.trim()) out.push({ key: 'command', value: s(t.command) });
  if (typeof t.hostname === 'string' && t.hostname.trim()) out.push({ key: 'hostname', value: s(t.hostname) });
  // Kept: Kade's compose policy decides at install who may run an app with powers over the host.
  if (t.privileged === true) out.push({ key: 'privileged', value: lit(true) });
  if (t.interactive === true) out.push({ key: 'stdin_open', value: lit(true) }, { key: 'tty', value: lit(true) });
  if (t.network === 'host' || t.network === 'none') out.push({ key: 'network_mode', value: lit(t.network) });
  else if (typeof t.network === 'string' && t.network && t.network !== 'bridge') b.notes.add(`network ${t.network} dropped: the app gets its own`);
  return out;
}

/** Env entries as fields (presets written as they are); TZ is Kade's, PUID/PGID become the fields Kade pre-fills. */
function environment(t: Obj, b: ContainerBuild): Entry[] {
  const all = envList(t.env);
  const declared = all.filter((e) => e.name !== 'TZ');
  if (declared.length < all.length) b.notes.add('TZ dropped: Kade sets it');
  return declared.map((e) => {
    if (e.preset) return { key: e.name, value: s(e.default ?? '') };
    const f = envField(e, b.newId(fieldIdOf(e.name)));
    b.fields.push(f);
    return { key: e.name, value: text(fieldParts(f)) };
  });
}

const RANGE = /^(\d{1,3}(\.\d{1,3}){3}:)?(\d+-\d+:)?\d+-\d+(\/(tcp|udp))?$/;

function ports(t: Obj, b: ContainerBuild): Item[] {
  return list(t.ports).map((p) => {
    const spec = parsePort(String(p));
    if (spec) return b.port(spec);
    if (!RANGE.test(String(p))) throw refuse(`port ${JSON.stringify(p)} is not host:container/protocol`);
    // A range is published as written: one field per port would not say what the app needs.
    b.notes.add(`port range ${String(p)} published as written`);
    return lit(String(p));
  });
}

/** Why a volume entry without a container path is refused, naming what it binds. */
function noContainerPath(v: unknown): string {
  const bind = isObj(v) && typeof v.bind === 'string' && v.bind.trim() ? v.bind.trim() : '';
  const to = isObj(v) && typeof v.container === 'string' && v.container ? ` (${JSON.stringify(v.container)} is not one)` : '';
  return bind ? `a volume binds ${bind} but has no container path${to}` : `a volume has no container path${to}`;
}

/** Host folders and unnamed volumes in the app's data folder; a volume name stays a named volume. */
function volumes(t: Obj, b: ContainerBuild): Item[] {
  return list(t.volumes).flatMap((v): Item[] => {
    if (!isObj(v) || typeof v.container !== 'string' || !v.container.startsWith('/')) throw refuse(noContainerPath(v));
    const tail = `:${v.container}${v.readonly === true ? ':ro' : ''}`;
    const bind = typeof v.bind === 'string' ? v.bind.trim() : '';
    if (bind && !bind.startsWith('/')) {
      if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(bind)) throw refuse(`volume ${JSON.stringify(bind)} is neither a host path nor a volume name`);
      b.named.add(bind);
      return [s(`${bind}${tail}`)];
    }
    const parts = bind ? dataParts(bind, b.notes, v.readonly === true) : appdataParts(subPath(v.container));
    if (!parts) {
      b.notes.add(`${bind} dropped: Kade sets TZ`);
      return [];
    }
    return [text([...parts.map((p) => ('lit' in p ? { lit: dollarSafe(p.lit) } : p)), { lit: dollarSafe(tail) }])];
  });
}

function labels(t: Obj, b: ContainerBuild): Entry[] {
  return list(t.labels).flatMap((l): Entry[] => {
    if (!isObj(l) || typeof l.name !== 'string') return [];
    if (!OWNER_LABEL.test(l.name)) return [{ key: l.name, value: s(String(l.value ?? '')) }];
    b.notes.add(`label ${l.name} dropped: Kade and compose set it`);
    return [];
  });
}

/** The service's entries, in the order a person would write them. */
export function serviceEntries(t: Obj, image: string, b: ContainerBuild): Entry[] {
  const out = basics(t, image, b);
  const parts: [string, Entry[] | Item[], 'map' | 'seq'][] = [
    ['environment', environment(t, b), 'map'],
    ['ports', ports(t, b), 'seq'],
    ['volumes', volumes(t, b), 'seq'],
    ['labels', labels(t, b), 'map'],
  ];
  for (const [key, list, kind] of parts) {
    if (list.length) out.push({ key, value: kind === 'map' ? map(list as Entry[]) : seq(list as Item[]) });
  }
  return out;
}

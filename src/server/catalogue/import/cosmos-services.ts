/**
 * The Cosmos-specific parts of a converted compose tree: container names, `cosmos-*` labels and proxy routes
 * dropped (routes become published ports, so the app stays reachable without Cosmos's proxy), host paths onto the
 * data folder, named volumes declared, seconds as compose durations.
 */
import type { TemplateFieldT } from '../../../shared/template.ts';
import { composeKeys, dependsOn, linksList, withHostGateway } from './cosmos-keys.ts';
import { type PortSpec, parsePort, portItem, readOnlyFlag, readOnlyMode } from './portainer-common.ts';
import { type Entry, type Item, isCondEntry, isCondItem, lit, map, type Node, type Part, seq, text } from './portainer-emit.ts';
import { dataParts } from './portainer-fields.ts';

export interface CosmosMapper {
  id: string;
  notes: Set<string>;
  newId: (base: string) => string;
  /** The connect fields the converted tree uses (their ids). */
  connects: ReadonlySet<string>;
  /** A form field used as a bind source or a published host port gets that type. */
  retype: (fieldId: string, type: 'path' | 'port') => void;
  /** The app's data folder field (`appdata_dir`, Cosmos's `{DefaultDataPath}`), declared once a host path lands in it. */
  dataFolder: () => void;
}

/** The field a value starts with (`{{data_path}}/x`, `{{web_port}}:80`). */
const leadingField = (n: Node | undefined): string | null => {
  const first = n?.k === 'text' ? n.parts[0] : undefined;
  return first && 'field' in first ? first.field : null;
};

type KeyEntry = Extract<Entry, { key: string }>;
type MapNode = Extract<Node, { k: 'map' }>;

const eachEntry = (entries: Entry[], fn: (e: KeyEntry) => Entry[]): Entry[] =>
  entries.flatMap((e) => (isCondEntry(e) ? [{ ...e, yes: eachEntry(e.yes, fn), no: eachEntry(e.no, fn) }] : fn(e)));
const eachItem = (items: Item[], fn: (i: Node) => Item[]): Item[] =>
  items.flatMap((i) => (isCondItem(i) ? [{ ...i, yes: eachItem(i.yes, fn), no: eachItem(i.no, fn) }] : fn(i)));
const plainEntry = (m: MapNode, key: string): KeyEntry | undefined => m.entries.find((e): e is KeyEntry => !isCondEntry(e) && e.key.toLowerCase() === key);
const str = (n: Node | undefined): string | undefined => (n?.k === 'scalar' && typeof n.v === 'string' ? n.v : undefined);

export interface Mapped {
  ports: TemplateFieldT[];
  image?: string;
  icon?: string;
  web?: { port_field: string; scheme: 'http' | 'https'; path: string };
}

class ServiceMapper {
  readonly out: Mapped = { ports: [] };
  readonly volumes = new Set<string>();
  private readonly routed = new Set<string>();
  constructor(private readonly m: CosmosMapper) {}

  private port(spec: PortSpec, item: (i: Item) => void, scheme?: 'http' | 'https'): string {
    const { container, host } = spec;
    const id = this.m.newId(this.out.ports.length ? `port_${container}` : 'port');
    const made = portItem(spec, id, { en: `Host port for ${container}`, nl: `Hostpoort voor ${container}` });
    this.out.ports.push(made.field);
    item(made.item);
    if (scheme && !this.out.web && host) this.out.web = { port_field: id, scheme, path: '/' };
    return id;
  }

  /**
   * Published ports: a literal host port becomes a port field. The same port listed twice is kept once (compose
   * refuses to publish it twice); the same host port for tcp and udp is one field.
   */
  private ports(list: Extract<Node, { k: 'seq' }>): void {
    const items = list.items;
    list.items = [];
    const seen = new Set<string>();
    const fields = new Map<string, string>();
    for (const i of eachItem(items, (p) => [p])) {
      const whole = isCondItem(i) ? null : JSON.stringify(i);
      if (whole !== null && seen.has(whole)) {
        this.m.notes.add('ports listed twice kept once');
        continue;
      }
      if (whole !== null) seen.add(whole);
      const spec = !isCondItem(i) && i.k === 'scalar' ? parsePort(String(i.v)) : null;
      if (!spec?.host || spec.ip) {
        list.items.push(i);
        const field = isCondItem(i) ? null : leadingField(i);
        if (field && !isCondItem(i) && i.k === 'text' && i.parts.length === 2 && 'lit' in (i.parts[1] ?? {})) this.m.retype(field, 'port');
        continue;
      }
      const pair = `${spec.host}:${spec.container}`;
      const known = fields.get(pair);
      if (known) list.items.push(text([{ field: known }, { lit: `:${spec.container}${spec.proto && spec.proto !== 'tcp' ? `/${spec.proto}` : ''}` }]));
      else
        fields.set(
          pair,
          this.port(spec, (x) => list.items.push(x), 'http'),
        );
    }
  }

  /** A host path of the source onto the data folder (the host's own places as they are), or null for the time files. */
  private hostParts(source: string, readOnly: boolean): Part[] | null {
    const parts = dataParts(source, this.m.notes, readOnly);
    if (!parts) this.m.notes.add(`${source} dropped: Kade sets TZ`);
    else if (parts.some((p) => 'field' in p && p.field === 'appdata_dir')) this.m.dataFolder();
    return parts;
  }

  /** The short syntax `/host:/target[:mode]` with a literal host path (text already escaped, `$$`), as the long syntax is mapped. */
  private shortVolume(v: string): Item[] {
    const [source = '', ...rest] = v.split(':');
    if (!source.startsWith('/') || rest.length === 0) return [lit(v)];
    const parts = this.hostParts(source, readOnlyMode(rest[1]));
    return parts ? [text([...parts, { lit: `:${rest.join(':')}` }])] : [];
  }

  private volume(v: Node): Item[] {
    if (v.k === 'scalar' && typeof v.v === 'string') return this.shortVolume(v.v);
    if (v.k !== 'map') return [v];
    v.entries = eachEntry(v.entries, (e) => [{ key: e.key.toLowerCase() === 'readonly' ? 'read_only' : e.key.toLowerCase(), value: e.value }]);
    const type = str(plainEntry(v, 'type')?.value) ?? 'volume';
    const source = plainEntry(v, 'source');
    const s = str(source?.value);
    const field = leadingField(source?.value);
    if (field && field !== 'appdata_dir' && type === 'bind') this.m.retype(field, 'path');
    if (!source || s === undefined) return [v];
    if (type === 'bind' || s.startsWith('/')) {
      const ro = plainEntry(v, 'read_only')?.value;
      const parts = this.hostParts(s, readOnlyFlag(ro?.k === 'scalar' ? ro.v : undefined));
      if (!parts) return [];
      source.value = text(parts);
    } else if (type === 'volume' && s) this.volumes.add(s.replace(/\$\$/g, '$'));
    return [v];
  }

  private routes(value: Node, svcName: string, svc: MapNode): void {
    this.m.notes.add('Cosmos routes (its own reverse proxy) mapped to published ports');
    if (value.k !== 'seq') return;
    for (const r of value.items) {
      if (isCondItem(r) || r.k !== 'map') continue;
      const target = str(plainEntry(r, 'target')?.value) ?? '';
      const m = /^(https?):\/\/([^/:]+):(\d+)/.exec(target);
      if (!m?.[3] || m[2] !== svcName) continue;
      let ports = plainEntry(svc, 'ports');
      if (!ports) {
        ports = { key: 'ports', value: seq([]) };
        svc.entries.push(ports);
      }
      const list = ports.value;
      if (list.k !== 'seq') continue;
      const already = list.items.some((i) => !isCondItem(i) && i.k === 'scalar' && parsePort(String(i.v))?.container === m[3]);
      const key = `${svcName}:${m[3]}`;
      // Cosmos's proxy answered on 80/443; a published port below 1024 would need privileges Kade does not assume.
      const host = Number(m[3]) < 1024 ? String(Number(m[3]) === 443 ? 8443 : Number(m[3]) === 80 ? 8080 : Number(m[3]) + 8000) : m[3];
      if (!already && !this.routed.has(key)) this.port({ container: m[3], host }, (i) => list.items.push(i), m[1] as 'http' | 'https');
      this.routed.add(key);
    }
  }

  service(svcName: string, svc: Node): Node {
    if (svc.k !== 'map') return svc;
    const routes: Node[] = [];
    svc.entries = eachEntry(composeKeys(svc.entries), (e) => {
      const key = e.key;
      const image = key === 'image' ? str(e.value) : undefined;
      if (image && !this.out.image) this.out.image = image;
      if (key === 'container_name') {
        this.m.notes.add('container_name dropped: compose names the containers after the app');
        return [];
      }
      if (key === 'routes') {
        routes.push(e.value);
        return [];
      }
      if (key === 'uid' || key === 'gid' || key === 'post_install') {
        this.m.notes.add(`${key} dropped`);
        return [];
      }
      if (key === 'labels' && e.value.k === 'map') {
        e.value.entries = eachEntry(e.value.entries, (l) => {
          if (!l.key.startsWith('cosmos-')) return [l];
          if (l.key === 'cosmos-icon' && str(l.value)) this.out.icon = (str(l.value) as string).replace(/\$\$/g, '$');
          this.m.notes.add('cosmos-* labels dropped');
          return [];
        });
      }
      if (key === 'volumes' && e.value.k === 'seq') e.value.items = eachItem(e.value.items, (v) => this.volume(v));
      if (key === 'ports' && e.value.k === 'seq') this.ports(e.value);
      if (key === 'links') return [{ key, value: linksList(e.value) }];
      if (key === 'depends_on') return [{ key, value: dependsOn(e.value, (n) => this.m.notes.add(n)) }];
      if ((key === 'stop_grace_period' || key === 'healthcheck') && e.value.k === 'scalar' && typeof e.value.v === 'number') {
        return [{ key: e.key, value: lit(`${e.value.v}s`) }];
      }
      if (key === 'healthcheck' && e.value.k === 'map') {
        e.value.entries = eachEntry(composeKeys(e.value.entries), (h) =>
          ['interval', 'timeout', 'start_period'].includes(h.key) && h.value.k === 'scalar' && typeof h.value.v === 'number'
            ? [{ key: h.key, value: lit(`${h.value.v}s`) }]
            : [h],
        );
      }
      return [e];
    });
    for (const r of routes) this.routes(r, svcName, svc);
    withHostGateway(svc, this.m.connects);
    return svc;
  }
}

/** Maps every service and the top level; answers the port fields, the image, the icon and the web port. */
export function mapServices(root: MapNode, m: CosmosMapper): Mapped {
  const sm = new ServiceMapper(m);
  root.entries = eachEntry(root.entries, (e) => {
    if (e.key === 'services' && e.value.k === 'map') e.value.entries = eachEntry(e.value.entries, (s) => [{ key: s.key, value: sm.service(s.key, s.value) }]);
    if (e.key === 'volumes' && e.value.k === 'seq') {
      // Cosmos lists volumes as [{name, driver}]; compose maps them by name.
      const entries: Entry[] = [];
      for (const v of e.value.items) {
        const name = !isCondItem(v) && v.k === 'map' ? str(plainEntry(v, 'name')?.value) : undefined;
        const driver = !isCondItem(v) && v.k === 'map' ? str(plainEntry(v, 'driver')?.value) : undefined;
        if (name) entries.push({ key: name, value: map(driver ? [{ key: 'driver', value: lit(driver) }] : []) });
      }
      return [{ key: 'volumes', value: map(entries) }];
    }
    if (e.key === 'networks' && e.value.k === 'map') {
      e.value.entries = eachEntry(e.value.entries, (n) => {
        if (n.value.k === 'map') n.value.entries = n.value.entries.filter((x) => isCondEntry(x) || x.key.toLowerCase() !== 'name');
        return [n];
      });
    }
    return [e];
  });
  if (sm.volumes.size) {
    let top = plainEntry(root, 'volumes');
    if (top?.value.k !== 'map') {
      top = { key: 'volumes', value: map([]) };
      root.entries = root.entries.filter((e) => isCondEntry(e) || e.key !== 'volumes');
      root.entries.push(top);
    }
    const declared = top.value as MapNode;
    for (const v of sm.volumes)
      if (!plainEntry(declared, v.toLowerCase()) && !declared.entries.some((e) => !isCondEntry(e) && e.key === v))
        declared.entries.push({ key: v, value: map([]) });
  }
  return sm.out;
}

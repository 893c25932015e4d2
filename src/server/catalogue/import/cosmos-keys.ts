/**
 * What Cosmos accepts and compose does not, put the way compose (v1 and v2) reads it: keys in the Go API's casing
 * (`NetworkMode`, `CapAdd`), `links` as a map, `depends_on` in the long form without a condition.
 */
import { type Entry, isCondEntry, lit, map, type Node, type Part, seq, text } from './portainer-emit.ts';

/**
 * A key as compose spells it: Cosmos reads its service keys through Go, which lets a template write `NetworkMode`
 * or `CapAdd` for `network_mode` and `cap_add`. Keys already in compose's casing, and labels or variables (not
 * passed through here), stay as they are.
 */
export const composeKey = (key: string): string =>
  /^[A-Z][A-Za-z0-9]*$/.test(key) || /^[a-z]+[A-Z][A-Za-z0-9]*$/.test(key) ? key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase() : key;

/** Entries with their keys in compose's casing (the same key twice is merged later, when the file is written). */
export const composeKeys = (entries: Entry[]): Entry[] =>
  entries.map((e) => (isCondEntry(e) ? { ...e, yes: composeKeys(e.yes), no: composeKeys(e.no) } : { key: composeKey(e.key), value: e.value }));

const partsOf = (n: Node): Part[] | null => {
  if (n.k === 'text') return n.parts;
  if (n.k === 'scalar') return n.v === null || n.v === '' ? [] : [{ lit: String(n.v) }];
  return null;
};

/** `links` as compose lists them: `{"db": "database"}` becomes `db:database`, a name without an alias stays a name. */
export function linksList(value: Node): Node {
  if (value.k !== 'map') return value;
  const items = value.entries.flatMap((e) => {
    if (isCondEntry(e)) return [];
    const alias = partsOf(e.value);
    if (alias === null) return [];
    return [alias.length === 0 ? lit(e.key) : text([{ lit: `${e.key}:` }, ...alias])];
  });
  return seq(items);
}

/**
 * `depends_on` in the long form as compose v1 and v2 both read it: every entry with a condition (compose v1
 * refuses one without, and the keys v2 added, `restart` and `required`); `service_started` is what the short form means.
 */
export function dependsOn(value: Node, note: (s: string) => void): Node {
  if (value.k !== 'map') return value;
  const entries = value.entries.map((e): Entry => {
    if (isCondEntry(e)) return e;
    const v = e.value;
    const given = v.k === 'map' ? v.entries.find((x): x is Extract<Entry, { key: string }> => !isCondEntry(x) && x.key === 'condition') : undefined;
    if (v.k === 'map' && v.entries.some((x) => isCondEntry(x) || x.key !== 'condition')) note(`depends_on of ${e.key}: only the condition is kept`);
    return { key: e.key, value: map([{ key: 'condition', value: given?.value ?? lit('service_started') }]) };
  });
  return map(entries);
}

const GATEWAY = 'host.docker.internal:host-gateway';

/**
 * A service that uses a connect field reaches the other app through the host (docs/templates.md, "Connect
 * fields"): it gets `extra_hosts: host.docker.internal:host-gateway`, next to the hosts it lists itself.
 */
export function withHostGateway(svc: Extract<Node, { k: 'map' }>, connects: ReadonlySet<string>): void {
  const json = JSON.stringify(svc.entries);
  const uses = [...connects].some((id) => [id, `${id}_host`, `${id}_port`].some((f) => json.includes(JSON.stringify({ field: f }))));
  if (!uses) return;
  const hosts = svc.entries.find((e): e is Extract<Entry, { key: string }> => !isCondEntry(e) && e.key === 'extra_hosts');
  if (!hosts) {
    svc.entries.push({ key: 'extra_hosts', value: seq([lit(GATEWAY)]) });
    return;
  }
  if (hosts.value.k === 'seq' && !JSON.stringify(hosts.value).includes('host.docker.internal')) hosts.value.items.push(lit(GATEWAY));
}

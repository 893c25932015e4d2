import { normalisePath } from '../../../shared/paths.ts';
import { type ServiceChoicesT, TAG_PATTERN } from '../../../shared/stack-config.ts';
import { AppError } from '../../core/errors.ts';
import type { StackMetaT } from '../store/stack-files.ts';

export type ForbiddenReason = 'relative' | 'not_a_device' | 'variable';

const EXPLAIN: Record<ForbiddenReason, string> = {
  relative: 'is not an absolute path',
  not_a_device: 'is not a device under /dev',
  // Written into the compose file as typed, compose would read `${X}` as a variable and bind what it holds.
  variable: "holds '$', which compose would read as a variable: type the folder itself",
};

/** A host path or device whose spelling is wrong; whether the place is allowed is the bind policy's (bind-policy.ts) to say. */
export const forbiddenPath = (path: string, reason: ForbiddenReason, field: string) =>
  new AppError('forbidden_path', `${field}: '${path}' ${EXPLAIN[reason]}`, { params: { path, reason, field }, fields: [field] });

const devicePathProblem = (raw: string): ForbiddenReason | null => (raw.trim().startsWith('/') ? null : 'relative');

/**
 * Checks the spelling of the extras of every service and returns them normalised. Where a host path may lie is
 * judged on the final compose document by the bind policy (bind-policy.ts), so a hand-edited `.svc.json` is judged too.
 */
export function checkChoices(services: Record<string, ServiceChoicesT>): Record<string, ServiceChoicesT> {
  const out: Record<string, ServiceChoicesT> = {};
  for (const [svc, c] of Object.entries(services)) {
    const at = `services.${svc}`;
    if (c.tag != null && !TAG_PATTERN.test(c.tag)) throw new AppError('validation', `${at}.tag '${c.tag}' is not an image tag`, { fields: [`${at}.tag`] });
    const volumes = (c.volumes ?? []).map((v, i) => {
      if (!v.host.trim().startsWith('/')) throw forbiddenPath(v.host, 'relative', `${at}.volumes.${i}.host`);
      if (v.host.includes('$')) throw forbiddenPath(v.host, 'variable', `${at}.volumes.${i}.host`);
      const container = normalisePath(v.container);
      if (!container.startsWith('/') || container === '/' || /[:,$]/.test(container) || /[:,]/.test(v.host)) {
        throw new AppError('validation', `${at}.volumes.${i}: the folder inside the app must be an absolute path without ':', ',' or '$'`, {
          fields: [`${at}.volumes.${i}.container`],
        });
      }
      return { host: normalisePath(v.host), container, read_only: v.read_only };
    });
    const devices = (c.devices ?? []).map((d, i) => {
      const reason = /[:,]/.test(d) ? 'not_a_device' : d.includes('$') ? 'variable' : devicePathProblem(d);
      if (reason) throw forbiddenPath(d, reason, `${at}.devices.${i}`);
      return normalisePath(d);
    });
    const kept: ServiceChoicesT = {};
    if (c.tag) kept.tag = c.tag;
    if (volumes.length) kept.volumes = volumes;
    if (devices.length) kept.devices = devices;
    out[svc] = kept;
  }
  return out;
}

/** `repo:tag` with the tag replaced; a digest pin is replaced by the tag too. */
export function withTag(image: string, tag: string): string {
  const at = image.indexOf('@');
  const bare = at >= 0 ? image.slice(0, at) : image;
  const slash = bare.lastIndexOf('/');
  const colon = bare.lastIndexOf(':');
  const repo = colon > slash ? bare.slice(0, colon) : bare;
  return `${repo}:${tag}`;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The folder inside the container a compose volume entry mounts to (short or long syntax). */
function targetOf(v: unknown): string | null {
  if (isObj(v)) return typeof v.target === 'string' ? normalisePath(v.target) : null;
  if (typeof v !== 'string') return null;
  const parts = v.split(':');
  return parts.length >= 2 ? normalisePath(parts[1] ?? '') : normalisePath(parts[0] ?? '');
}

/**
 * Re-applies the choices of `.svc.json` to a freshly rendered compose document (in place): version tags,
 * extra folders and devices per service, the shared networks with each service's own address, and the
 * subnets of the project's own networks.
 */
export function applyChoices(doc: Obj, meta: Pick<StackMetaT, 'services' | 'networks' | 'subnets'>): Obj {
  const services = isObj(doc.services) ? doc.services : {};
  const choices = checkChoices(
    Object.fromEntries(Object.entries(meta.services).map(([k, v]) => [k, { tag: v.tag ?? null, volumes: v.volumes ?? [], devices: v.devices ?? [] }])),
  );
  for (const [name, c] of Object.entries(choices)) {
    const svc = services[name];
    if (!isObj(svc)) continue;
    if (c.tag && typeof svc.image === 'string') svc.image = withTag(svc.image, c.tag);
    if (c.volumes?.length) {
      const targets = new Set(c.volumes.map((v) => v.container));
      const current = Array.isArray(svc.volumes) ? svc.volumes.filter((v) => !targets.has(targetOf(v) ?? '')) : [];
      svc.volumes = [...current, ...c.volumes.map((v) => `${v.host}:${v.container}${v.read_only ? ':ro' : ''}`)];
    }
    if (c.devices?.length) {
      const current = Array.isArray(svc.devices) ? svc.devices.map(String) : [];
      const hosts = new Set(current.map((d) => d.split(':')[0]));
      svc.devices = [...current, ...c.devices.filter((d) => !hosts.has(d)).map((d) => `${d}:${d}`)];
    }
  }
  applyNetworks(doc, services, meta);
  applySubnets(doc, meta.subnets);
  return doc;
}

export type NetworkJoins = Record<string, { ip?: string | undefined }>;

/** The shared networks one service joined; the older format (`shared_network` + `ip`) joins every chosen network, the address on the first. */
export function serviceJoins(meta: Pick<StackMetaT, 'services' | 'networks'>, service: string): NetworkJoins {
  const c = meta.services[service];
  if (!c) return {};
  if (c.networks) return c.networks;
  if (!c.shared_network) return {};
  return Object.fromEntries(meta.networks.map((n, i) => [n, i === 0 && c.ip ? { ip: c.ip } : {}]));
}

/** A service's `networks` as a mapping; a service without the key is on the project's default network. */
function networksOf(svc: Obj): Obj {
  if (Array.isArray(svc.networks)) return Object.fromEntries(svc.networks.map((n) => [String(n), null]));
  if (isObj(svc.networks)) return { ...svc.networks };
  return { default: null };
}

/**
 * The shared networks of `.svc.json` in the compose document: each joining service gets them (with its own
 * address), the document declares them external. A service with `network_mode` keeps it: it cannot join.
 */
function applyNetworks(doc: Obj, services: Obj, meta: Pick<StackMetaT, 'services' | 'networks'>): void {
  const used = new Set<string>();
  for (const name of Object.keys(meta.services)) {
    const joins = serviceJoins(meta, name);
    const svc = services[name];
    if (!isObj(svc) || Object.keys(joins).length === 0 || svc.network_mode !== undefined) continue;
    const current = networksOf(svc);
    for (const [n, j] of Object.entries(joins)) {
      current[n] = j.ip ? { ipv4_address: j.ip } : null;
      used.add(n);
    }
    svc.networks = current;
  }
  if (used.size === 0) return;
  const top = isObj(doc.networks) ? doc.networks : {};
  for (const n of used) top[n] = { external: true };
  doc.networks = top;
}

/**
 * The compose project's own networks that Kade gives a subnet from its pool: every top-level network that
 * is not external and has no address plan or other driver, and `default` when a service uses it.
 */
export function projectNetworks(doc: Obj): string[] {
  const top = isObj(doc.networks) ? doc.networks : {};
  const out = new Set<string>();
  const plannable = (n: string) => {
    const def = top[n];
    if (def === undefined || def === null) return true;
    if (!isObj(def)) return false;
    if (def.external) return false;
    if (def.driver !== undefined && def.driver !== 'bridge') return false;
    const ipam = isObj(def.ipam) ? def.ipam : null;
    return !(ipam && Array.isArray(ipam.config) && ipam.config.length > 0);
  };
  for (const n of Object.keys(top)) if (n !== 'default' && plannable(n)) out.add(n);
  const services = isObj(doc.services) ? doc.services : {};
  for (const svc of Object.values(services)) {
    if (!isObj(svc) || svc.network_mode !== undefined) continue;
    if (Object.hasOwn(networksOf(svc), 'default') && plannable('default')) out.add('default');
  }
  return [...out].sort();
}

/** Writes the subnets Kade's pool gave the project's networks into the document's `ipam` blocks. */
export function applySubnets(doc: Obj, subnets: Record<string, string> | undefined): void {
  if (!subnets || Object.keys(subnets).length === 0) return;
  const wanted = new Set(projectNetworks(doc));
  const top = isObj(doc.networks) ? doc.networks : {};
  for (const [n, subnet] of Object.entries(subnets)) {
    if (!wanted.has(n)) continue;
    const def = isObj(top[n]) ? (top[n] as Obj) : {};
    top[n] = { ...def, ipam: { ...(isObj(def.ipam) ? def.ipam : {}), config: [{ subnet }] } };
  }
  doc.networks = top;
}

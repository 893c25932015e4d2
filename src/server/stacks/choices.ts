import { isInside, normalisePath } from '../../shared/paths.ts';
import { type ServiceChoicesT, TAG_PATTERN } from '../../shared/stack-config.ts';
import { AppError } from '../core/errors.ts';
import { realPathOf } from '../settings/path-check.ts';
import type { StackMetaT } from './stack-files.ts';

/** Host folders whose contents control the host: an app that mounts them owns the machine. */
const FORBIDDEN_TREES = ['/etc', '/proc', '/sys', '/boot'];
const DEFAULT_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock'];

export type ForbiddenReason = 'relative' | 'root' | 'engine_socket' | 'system_folder' | 'not_a_device';

const EXPLAIN: Record<ForbiddenReason, string> = {
  relative: 'is not an absolute path',
  root: 'is the root of the host: mounting it hands the app every file of the host',
  engine_socket: "is (or holds) the container engine's socket: an app with it controls every container and the host",
  system_folder: 'lies in /etc, /proc, /sys or /boot: host configuration and kernel interfaces are never mounted into an app',
  not_a_device: 'is not a device under /dev',
};

export const forbiddenPath = (path: string, reason: ForbiddenReason, field: string) =>
  new AppError('forbidden_path', `${field}: '${path}' ${EXPLAIN[reason]}`, { params: { path, reason, field }, fields: [field] });

/** Why a host path of an extra folder is refused, judged on the written path and again with links resolved; null when allowed. */
export function hostPathProblem(raw: string, engineSocket: string | null): ForbiddenReason | null {
  if (!raw.trim().startsWith('/')) return 'relative';
  const sockets = [...DEFAULT_SOCKETS, ...(engineSocket ? [engineSocket] : [])].flatMap((s) => [normalisePath(s), realPathOf(normalisePath(s))]);
  for (const p of new Set([normalisePath(raw), realPathOf(normalisePath(raw))])) {
    if (p === '/') return 'root';
    // The socket itself, or a folder that holds it (/run, /var/run).
    if (sockets.some((s) => isInside(s, p))) return 'engine_socket';
    if (FORBIDDEN_TREES.some((t) => isInside(p, t))) return 'system_folder';
  }
  return null;
}

function devicePathProblem(raw: string): ForbiddenReason | null {
  const p = normalisePath(raw);
  if (!raw.startsWith('/')) return 'relative';
  const real = realPathOf(p);
  return isInside(p, '/dev') && p !== '/dev' && isInside(real, '/dev') && real !== '/dev' ? null : 'not_a_device';
}

/**
 * Checks the extras of every service and returns them normalised. The API calls this before a job
 * starts, and the compose transform again, so a hand-edited `.svc.json` cannot slip a path through.
 */
export function checkChoices(services: Record<string, ServiceChoicesT>, engineSocket: string | null): Record<string, ServiceChoicesT> {
  const out: Record<string, ServiceChoicesT> = {};
  for (const [svc, c] of Object.entries(services)) {
    const at = `services.${svc}`;
    if (c.tag != null && !TAG_PATTERN.test(c.tag)) throw new AppError('validation', `${at}.tag '${c.tag}' is not an image tag`, { fields: [`${at}.tag`] });
    const volumes = (c.volumes ?? []).map((v, i) => {
      const reason = hostPathProblem(v.host, engineSocket);
      if (reason) throw forbiddenPath(v.host, reason, `${at}.volumes.${i}.host`);
      const container = normalisePath(v.container);
      if (!container.startsWith('/') || container === '/' || /[:,]/.test(container) || /[:,]/.test(v.host)) {
        throw new AppError('validation', `${at}.volumes.${i}: the folder inside the app must be an absolute path without ':' or ','`, {
          fields: [`${at}.volumes.${i}.container`],
        });
      }
      return { host: normalisePath(v.host), container, read_only: v.read_only };
    });
    const devices = (c.devices ?? []).map((d, i) => {
      const reason = /[:,]/.test(d) ? 'not_a_device' : devicePathProblem(d);
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
 * extra folders and devices per service, then the shared networks with each service's own address.
 */
export function applyChoices(doc: Obj, meta: Pick<StackMetaT, 'services' | 'networks'>, engineSocket: string | null): Obj {
  const services = isObj(doc.services) ? doc.services : {};
  const choices = checkChoices(
    Object.fromEntries(Object.entries(meta.services).map(([k, v]) => [k, { tag: v.tag ?? null, volumes: v.volumes ?? [], devices: v.devices ?? [] }])),
    engineSocket,
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
  return doc;
}

function applyNetworks(doc: Obj, services: Obj, meta: Pick<StackMetaT, 'services' | 'networks'>): void {
  if (meta.networks.length === 0) return;
  let joined = false;
  for (const [name, choice] of Object.entries(meta.services)) {
    const svc = services[name];
    if (!choice.shared_network || !isObj(svc)) continue;
    joined = true;
    const current: Obj = Array.isArray(svc.networks)
      ? Object.fromEntries(svc.networks.map((n) => [String(n), null]))
      : isObj(svc.networks)
        ? svc.networks
        : { default: null };
    meta.networks.forEach((n, i) => {
      current[n] = i === 0 && choice.ip ? { ipv4_address: choice.ip } : null;
    });
    svc.networks = current;
  }
  if (!joined) return;
  const top = isObj(doc.networks) ? doc.networks : {};
  for (const n of meta.networks) top[n] = { external: true };
  doc.networks = top;
}

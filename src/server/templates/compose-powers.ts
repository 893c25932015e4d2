import { isMap, parseDocument } from 'yaml';
import { isInside, normalisePath } from '../../shared/paths.ts';
import type { Power, PowerUseT } from '../../shared/powers.ts';
import { AppError } from '../core/errors.ts';
import { interpolate } from './compose-sources.ts';

/**
 * Powers over the host a compose file can hand an app, read from its text as compose reads it. The compose policy
 * (stacks/policy/compose-policy.ts) judges who may use them; the store and the import report show them
 * (app-powers.ts). Pure: the same text gives the same powers wherever it is read.
 */
export type PowerUse = PowerUseT;

/** The engine's socket where the engine puts it: a bind of it is full control of every container on the host. */
export const ENGINE_SOCKETS: readonly string[] = ['/var/run/docker.sock', '/run/docker.sock'];

/** Capabilities the engine gives every container already: adding them changes nothing. */
const DEFAULT_CAPS = new Set([
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'SETGID',
  'SETUID',
  'SETPCAP',
  'NET_BIND_SERVICE',
  'NET_RAW',
  'SYS_CHROOT',
  'MKNOD',
  'AUDIT_WRITE',
  'SETFCAP',
]);

/** Label prefixes by which Kade and compose tell which app a container belongs to (and what it is, `kade.probe`). */
const OWNER_LABELS = ['com.docker.compose.', 'kade.'];
/** The test suite's cleanup marker: it grants nothing (Kade never reads it), so templates under test may set it. */
const FREE_LABELS = new Set(['kade.test']);
export const MAX_ALIASES = 100;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const invalid = (msg: string, params: Record<string, string | number> = {}) =>
  new AppError('compose_invalid', `the compose file ${msg}`, { params, fields: ['compose'] });

/**
 * Parses compose text as compose reads it (merge keys applied), refusing what would let the file say one thing to
 * Kade and another to compose: duplicate keys, more than MAX_ALIASES aliases (an alias bomb), no services.
 */
export function parseComposeStrict(text: string): Obj {
  const doc = parseDocument(text, { uniqueKeys: true, merge: true });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line;
    const dup = first.code === 'DUPLICATE_KEY';
    throw invalid(`${dup ? 'repeats a key' : 'is not valid YAML'}${line ? ` (line ${line})` : ''}: ${first.message.split('\n')[0]}`, {
      reason: dup ? 'duplicate_key' : 'yaml',
      ...(line ? { line } : {}),
    });
  }
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (e) {
    throw invalid(`cannot be read: ${(e as Error).message}`, { reason: 'aliases' });
  }
  if (!isMap(doc.contents) || !isObj(js) || !isObj(js.services) || Object.keys(js.services).length === 0) {
    throw invalid('has no services', { reason: 'no_services' });
  }
  return js;
}

const asList = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]);
const text = (v: unknown, env: Record<string, string>): string => (typeof v === 'string' ? interpolate(v, env).trim() : String(v ?? '').trim());
const FALSE = new Set(['', 'false', '0', 'no', 'off']);

/** The host side of each bind of a service's `volumes` (short and long syntax), interpolated as compose will. */
function bindSources(svc: Obj, env: Record<string, string>): string[] {
  return asList(svc.volumes).flatMap((v) => {
    if (typeof v === 'string') {
      const parts = interpolate(v, env).split(':');
      return parts.length >= 2 ? [(parts[0] ?? '').trim()] : [];
    }
    return isObj(v) && v.type === 'bind' ? [text(v.source, env)] : [];
  });
}

/** The namespace, capability and security powers of one service. */
function kernelPowers(svc: Obj, env: Record<string, string>, add: (power: Power, value: string) => void): void {
  if (svc.privileged !== undefined && !FALSE.has(text(svc.privileged, env).toLowerCase())) add('privileged', 'true');
  for (const key of ['network_mode', 'pid', 'ipc'] as const) {
    const v = text(svc[key], env);
    // `container:x` joins any container's namespace, Kade's own too; `service:x` stays inside the app.
    if (v === 'host' || v.startsWith('container:')) add(key, v);
  }
  for (const key of ['uts', 'userns_mode', 'cgroup'] as const) if (text(svc[key], env) === 'host') add(key, 'host');
  for (const cap of asList(svc.cap_add)) {
    const name = text(cap, env).toUpperCase().replace(/^CAP_/, '');
    if (!DEFAULT_CAPS.has(name)) add('cap_add', name);
  }
  for (const opt of asList(svc.security_opt)) {
    const v = text(opt, env);
    if (/unconfined|(^|[:=])disable$|no-new-privileges[:=]false/i.test(v)) add('security_opt', v);
  }
}

/** The powers one service asks for, its values interpolated as compose will (`holders`: see `composePowers`). */
function servicePowers(service: string, svc: Obj, env: Record<string, string>, sockets: readonly string[], holders: boolean): PowerUse[] {
  const out: PowerUse[] = [];
  const add = (power: Power, value: string) => out.push({ service, power, value });
  kernelPowers(svc, env, add);
  for (const d of asList(svc.devices)) {
    const v = isObj(d) ? text(d.source, env) : text(d, env).split(':')[0];
    add('devices', v ?? '');
  }
  // The engine socket is a power of its own: whoever holds it runs any container, privileged, with any host folder.
  for (const source of bindSources(svc, env)) {
    const path = source.startsWith('/') ? normalisePath(source) : '';
    const socket = !path ? undefined : sockets.includes(path) ? path : holders ? sockets.find((s) => isInside(s, path)) : undefined;
    if (socket && !out.some((u) => u.power === 'engine_socket' && u.value === socket)) add('engine_socket', socket);
  }
  return out;
}

/** Labels as `key → value`, from the map or the `key=value` list form. */
function labelKeys(labels: unknown): string[] {
  if (isObj(labels)) return Object.keys(labels);
  return asList(labels).map((l) => String(l).split('=')[0]?.trim() ?? '');
}

/** Every label that claims ownership the way Kade and compose read it, with where it is. */
function ownerLabels(doc: Obj): { where: string; label: string }[] {
  const out: { where: string; label: string }[] = [];
  const scan = (where: string, labels: unknown) => {
    for (const label of labelKeys(labels)) {
      const key = label.toLowerCase();
      if (!FREE_LABELS.has(key) && OWNER_LABELS.some((p) => key.startsWith(p))) out.push({ where, label });
    }
  };
  for (const top of ['services', 'networks', 'volumes'] as const) {
    const defs = isObj(doc[top]) ? doc[top] : {};
    for (const [name, def] of Object.entries(defs)) {
      if (!isObj(def)) continue;
      scan(`${top}.${name}.labels`, def.labels);
      if (top === 'services' && isObj(def.deploy)) scan(`${top}.${name}.deploy.labels`, def.deploy.labels);
    }
  }
  return out;
}

/**
 * What an app gets over the host, read from its compose text (refusing YAML hazards and ownership labels). `sockets`:
 * the engine's socket paths (the defaults and the one Kade itself talks to). `holders`: a bind of a folder that holds
 * a socket (`/run`, `/var/run`, `/`) hands the app that socket too, named as it (what the store shows, app-powers.ts);
 * the policy and the install's review leave such a folder to the bind policy, which only an admin who confirms passes.
 */
export function composePowers(
  composeText: string,
  env: Record<string, string> = {},
  sockets: readonly string[] = ENGINE_SOCKETS,
  opts: { holders?: boolean } = {},
): PowerUse[] {
  const doc = parseComposeStrict(composeText);
  const spoof = ownerLabels(doc)[0];
  if (spoof) {
    throw new AppError(
      'compose_refused',
      `${spoof.where} sets the label '${spoof.label}': labels starting with com.docker.compose. or kade. say which app a container belongs to and are set by Kade and compose only`,
      { params: { reason: 'owner_label', where: spoof.where, label: spoof.label }, fields: ['compose'] },
    );
  }
  const services = doc.services as Obj;
  const all = [...new Set([...ENGINE_SOCKETS, ...sockets].map(normalisePath))];
  return Object.entries(services).flatMap(([name, svc]) => (isObj(svc) ? servicePowers(name, svc, env, all, opts.holders === true) : []));
}

/** One power as a seal keeps it: `service:power:value`. */
export const powerKey = (u: PowerUse): string => `${u.service}:${u.power}:${u.value}`;

/** Devices are judged by the host-folder allow list (bind policy); the other powers by ALLOW_PRIVILEGED_APPS. */
export const gatedPowers = (uses: PowerUse[]): PowerUse[] => uses.filter((u) => u.power !== 'devices');

/** `privileged`, `network_mode: host`, `cap_add: SYS_ADMIN`, `engine socket /var/run/docker.sock`: the powers in words, for messages and logs. */
export const describePowers = (uses: PowerUse[]): string =>
  [
    ...new Set(
      uses.map((u) => (u.power === 'privileged' ? 'privileged' : u.power === 'engine_socket' ? `engine socket ${u.value}` : `${u.power}: ${u.value}`)),
    ),
  ].join(', ');

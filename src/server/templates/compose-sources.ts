import { parse } from 'yaml';

/** One host path a compose document makes the engine read: a bind source, a device, or a file compose itself reads. */
export interface HostSource {
  /** Where in the document, e.g. `services.web.volumes.0`, `volumes.data.driver_opts.device`. */
  where: string;
  /** The path as compose will see it: `${...}` interpolated with the app's `.env`, `$$` unescaped. */
  path: string;
  /** `container`: `volumes_from` another container; `volume`: a named volume with a name of its own (explicit or external). */
  kind: 'bind' | 'device' | 'container' | 'volume';
  /** A bind the container can only read (`:ro`, `read_only: true`). */
  readOnly?: boolean;
  /** A bind of a service's `volumes` (or a named volume's `driver_opts.device`): a folder the container sees, not a file compose reads. */
  mount?: boolean;
  /** A compose file read in (`include`, `extends.file`): it defines services the policy never sees. */
  composeText?: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Compose's interpolation of one value: `$$` is a literal `$`; `${X}`, `${X:-d}`, `${X-d}`, `${X:?e}`, `$X`
 * take the `.env` value (an unknown variable is empty, as compose makes it), so a path hidden behind a variable is judged too.
 */
export function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (_m, dollar, braced, op, arg, bare) => {
    if (dollar === '$') return '$';
    const name = (braced ?? bare) as string;
    const set = Object.hasOwn(env, name);
    const v = set ? (env[name] as string) : '';
    if (op === ':-') return v === '' ? String(arg ?? '') : v;
    if (op === '-') return set ? v : String(arg ?? '');
    if (op === ':+') return v === '' ? '' : String(arg ?? '');
    if (op === '+') return set ? String(arg ?? '') : '';
    return v;
  });
}

/** Whether a short-syntax volume source is a host path (compose: it starts with `.`, `/` or `~`) rather than a volume name. */
const isHostPath = (s: string): boolean => /^[./~]/.test(s);

type Add = (where: string, raw: unknown, kind: HostSource['kind'], more?: Pick<HostSource, 'readOnly' | 'mount' | 'composeText'>) => void;

/** The mode part of a short-syntax volume (`ro`, `rw,z`, …) says read-only. */
const readOnlyMode = (mode: string | undefined): boolean => (mode ?? '').split(',').some((m) => m.trim() === 'ro');

/** `add` interpolates; a short syntax string is interpolated first (a variable may hold the colon) and added as it is. */
function serviceSources(svcName: string, svc: Obj, add: Add, env: Record<string, string>): void {
  const at = `services.${svcName}`;
  const volumes = Array.isArray(svc.volumes) ? svc.volumes : [];
  const escaped = (s: string) => s.replace(/\$/g, '$$$$');
  volumes.forEach((v, i) => {
    if (typeof v === 'string') {
      // Compose trims the source: `" /etc:/data"` binds /etc.
      const parts = interpolate(v, env).split(':');
      const source = (parts[0] ?? '').trim();
      if (parts.length >= 2 && isHostPath(source)) add(`${at}.volumes.${i}`, escaped(source), 'bind', { readOnly: readOnlyMode(parts[2]), mount: true });
    } else if (isObj(v) && v.type === 'bind') {
      add(`${at}.volumes.${i}.source`, v.source ?? '', 'bind', { readOnly: v.read_only === true || String(v.read_only) === 'true', mount: true });
    }
  });
  const devices = Array.isArray(svc.devices) ? svc.devices : [];
  devices.forEach((d, i) => {
    if (typeof d === 'string') add(`${at}.devices.${i}`, escaped(interpolate(d, env).split(':')[0] ?? ''), 'device');
    else if (isObj(d)) add(`${at}.devices.${i}.source`, d.source ?? '', 'device');
  });
  const envFiles = svc.env_file === undefined ? [] : Array.isArray(svc.env_file) ? svc.env_file : [svc.env_file];
  envFiles.forEach((f, i) => {
    add(`${at}.env_file.${i}`, isObj(f) ? f.path : f, 'bind');
  });
  // A build context on the host is read into the image: the same rule as a bind.
  const context = typeof svc.build === 'string' ? svc.build : isObj(svc.build) ? svc.build.context : undefined;
  if (typeof context === 'string' && !/^[a-z]+:\/\/|^git@|\.git(#|$)/i.test(context)) add(`${at}.build.context`, context, 'bind');
  if (isObj(svc.extends) && typeof svc.extends.file === 'string') add(`${at}.extends.file`, svc.extends.file, 'bind', { composeText: true });
  // Another container's volumes (Kade's own, another app's); `service` or `service:ro` of the same app is fine.
  const from = Array.isArray(svc.volumes_from) ? svc.volumes_from : [];
  from.forEach((v, i) => {
    if (typeof v === 'string' && interpolate(v, env).trim().startsWith('container:')) add(`${at}.volumes_from.${i}`, v, 'container');
  });
}

/**
 * Every host path the compose text makes the engine (or compose) read, with merge keys applied as compose applies
 * them: short and long volume syntax, named volumes bound to a host folder by `driver_opts`, devices, `env_file`,
 * top-level `secrets`/`configs` files, build contexts, `extends` and `include` files.
 */
export function hostSources(text: string, env: Record<string, string>): HostSource[] {
  const doc = parse(text, { merge: true, maxAliasCount: 100 }) as unknown;
  const out: HostSource[] = [];
  const add: Add = (where, raw, kind, more = {}) => {
    out.push({ where, path: typeof raw === 'string' ? interpolate(raw, env).trim() : String(raw ?? ''), kind, ...more });
  };
  if (!isObj(doc)) return out;
  const services = isObj(doc.services) ? doc.services : {};
  for (const [name, svc] of Object.entries(services)) if (isObj(svc)) serviceSources(name, svc, add, env);
  const volumes = isObj(doc.volumes) ? doc.volumes : {};
  for (const [name, v] of Object.entries(volumes)) {
    // A volume named on its own (or external) may be another app's: `<other app>_data`.
    if (isObj(v) && (typeof v.name === 'string' || v.external)) add(`volumes.${name}`, typeof v.name === 'string' ? v.name : name, 'volume');
    const opts = isObj(v) && isObj(v.driver_opts) ? v.driver_opts : null;
    if (opts && opts.device !== undefined) {
      // A network file system (nfs, cifs) mounts a share, not a host folder; a `bind` option or any other type binds from the host.
      const o = interpolate(String(opts.o ?? ''), env)
        .split(',')
        .map((x) => x.trim());
      const remote = /^(nfs4?|cifs|smb3?)$/.test(interpolate(String(opts.type ?? ''), env).trim()) && !o.includes('bind') && !o.includes('rbind');
      if (!remote) add(`volumes.${name}.driver_opts.device`, opts.device, 'bind', { mount: true, readOnly: o.includes('ro') });
    }
  }
  for (const top of ['secrets', 'configs'] as const) {
    const defs = isObj(doc[top]) ? doc[top] : {};
    for (const [name, def] of Object.entries(defs)) if (isObj(def) && def.file !== undefined) add(`${top}.${name}.file`, def.file, 'bind');
  }
  const include = Array.isArray(doc.include) ? doc.include : [];
  include.forEach((inc, i) => {
    const paths = typeof inc === 'string' ? [inc] : isObj(inc) ? (Array.isArray(inc.path) ? inc.path : [inc.path]) : [];
    paths.forEach((p, j) => {
      add(`include.${i}.path.${j}`, p, 'bind', { composeText: true });
    });
  });
  return out;
}

/** The named volumes a compose document declares for its own project (not `external`), by the engine's name. */
export function declaredVolumes(text: string, project: string): string[] {
  let doc: unknown;
  try {
    doc = parse(text, { merge: true, maxAliasCount: 100 });
  } catch {
    return [];
  }
  if (!isObj(doc) || !isObj(doc.volumes)) return [];
  return Object.entries(doc.volumes).flatMap(([key, v]) => {
    if (isObj(v) && v.external) return [];
    return [isObj(v) && typeof v.name === 'string' ? v.name : `${project}_${key}`];
  });
}

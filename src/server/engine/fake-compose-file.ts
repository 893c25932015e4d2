/**
 * What the fake compose (fake-compose.ts) reads from a project's files: the compose file and its overrides merged,
 * `${X}` interpolated with compose's own environment over `.env` (as compose does), and judged by the rules of the
 * CLI's `config` that Kade's files meet (compose.contract.ts holds the cases the real CLI and this agree on).
 * A refusal throws an Error with words in the CLI's manner; the fake turns it into compose_invalid or compose_failed.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';
import type { ComposeProject, ComposeVariant } from './compose.ts';
import type { MountSpec } from './engine.ts';

/** Reads a file as text, or null when there is none (a stack store's in-memory folder can stand in for the disk). */
export type ReadFile = (path: string) => string | Buffer | null;

export const readDisk: ReadFile = (path) => {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
};

export interface FakeService {
  name: string;
  containerName: string;
  image: string;
  cmd: string[];
  entrypoint: string[] | null;
  env: string[];
  labels: Record<string, string>;
  publish: { port: string; hostIp: string; hostPort: number }[];
  mounts: MountSpec[];
  /** The engine networks it joins; the first is the one it is created on. */
  networks: string[];
  user: string | null;
  workingDir: string | null;
  /** Changes when anything compose would recreate the container for changes. */
  hash: string;
}

export interface FakeProjectModel {
  services: FakeService[];
  /** Networks of the project: compose makes the internal ones, an external one must exist. */
  networks: { key: string; name: string; external: boolean }[];
  volumes: { key: string; name: string; external: boolean }[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const TOP_KEYS = ['version', 'name', 'services', 'networks', 'volumes', 'configs', 'secrets', 'include', 'models'];
const SERVICE_KEYS = new Set(
  (
    'annotations attach blkio_config build cap_add cap_drop cgroup cgroup_parent command configs container_name cpu_count cpu_percent ' +
    'cpu_period cpu_quota cpu_rt_period cpu_rt_runtime cpu_shares cpus cpuset credential_spec depends_on deploy develop ' +
    'device_cgroup_rules devices dns dns_opt dns_search domainname entrypoint env_file environment expose extends external_links ' +
    'extra_hosts gpus group_add healthcheck hostname image init ipc isolation labels label_file links logging mac_address mem_limit ' +
    'mem_reservation mem_swappiness memswap_limit network_mode networks oom_kill_disable oom_score_adj pid pids_limit platform ports ' +
    'post_start pre_stop privileged profiles pull_policy read_only restart runtime scale secrets security_opt shm_size stdin_open ' +
    'stop_grace_period stop_signal storage_opt sysctls tmpfs tty ulimits user userns_mode uts volumes volumes_from working_dir'
  ).split(' '),
);
/** Service keys whose value must be of one of these YAML kinds. */
const SHAPES: Record<string, ('string' | 'array' | 'mapping')[]> = {
  image: ['string'],
  container_name: ['string'],
  ports: ['array'],
  volumes: ['array'],
  expose: ['array'],
  environment: ['array', 'mapping'],
  labels: ['array', 'mapping'],
  networks: ['array', 'mapping'],
  command: ['string', 'array'],
  entrypoint: ['string', 'array'],
};
const shapeOf = (v: unknown) => (typeof v === 'string' ? 'string' : Array.isArray(v) ? 'array' : isObj(v) ? 'mapping' : typeof v);

/** `.env` as compose reads it: KEY=VALUE lines, quotes taken off, comments and blank lines skipped. */
export function parseDotEnv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/^\s*export\s+/, '');
    const m = /^\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*=(.*)$/.exec(line);
    if (!m?.[1] || line.trimStart().startsWith('#')) continue;
    const v = (m[2] ?? '').trim();
    const quoted = /^(['"])(.*)\1$/.exec(v);
    out[m[1]] = quoted
      ? quoted[1] === '"'
        ? (quoted[2] ?? '').replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1')
        : (quoted[2] ?? '')
      : v.replace(/\s+#.*$/, '');
  }
  return out;
}

/** Compose's `${X}`, `${X:-d}`, `${X-d}`, `${X:?e}`, `${X?e}`, `${X:+v}`, `$X` and `$$`; a required one missing throws. */
function interpolate(value: string, env: Record<string, string>, where: string): string {
  return value.replace(/\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))/g, (whole, dollar, braced, op, arg, bare) => {
    if (dollar === '$') return '$';
    const name = (braced ?? bare) as string;
    const set = Object.hasOwn(env, name);
    const v = set ? (env[name] as string) : '';
    const empty = op?.startsWith(':') ? v === '' : !set;
    if (op === ':-' || op === '-') return empty ? String(arg ?? '') : v;
    if (op === ':+' || op === '+') return empty ? '' : String(arg ?? '');
    if ((op === ':?' || op === '?') && empty) throw new Error(`Missing mandatory value for "${where}" option interpolating ${whole}: ${arg || name}`);
    return v;
  });
}

function interpolateTree(v: unknown, env: Record<string, string>, where: string): unknown {
  if (typeof v === 'string') return interpolate(v, env, where);
  if (Array.isArray(v)) return v.map((x) => interpolateTree(x, env, where));
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, interpolateTree(x, env, k)]));
  return v;
}

function readDoc(file: string, read: ReadFile): Obj {
  const text = read(file);
  if (text === null) throw new Error(`No such file or directory: '${file}'`);
  let doc: unknown;
  try {
    doc = parse(text.toString());
  } catch (err) {
    throw new Error(`yaml.parser.ParserError in "${file}": ${(err as Error).message}`);
  }
  if (!isObj(doc)) throw new Error(`Top level object in '${file}' needs to be an object not '${shapeOf(doc)}'.`);
  for (const k of Object.keys(doc)) {
    if (!TOP_KEYS.includes(k) && !k.startsWith('x-'))
      throw new Error(`The Compose file '${file}' is invalid because:\n'${k}' does not match any of the regexes: '^x-'`);
  }
  if (doc.services !== undefined && !isObj(doc.services)) throw new Error(`In file '${file}', services 'services' must be a mapping not an array.`);
  return doc;
}

/** An override file over the one before: mappings merged a level deep, lists of ports and volumes added to. */
function merge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (isObj(b) && isObj(v)) out[k] = k === 'services' ? merge(b, v) : { ...b, ...v };
    else if (Array.isArray(b) && Array.isArray(v) && ['ports', 'volumes', 'expose'].includes(k)) out[k] = [...b, ...v];
    else out[k] = v;
  }
  return out;
}

function checkService(name: string, svc: unknown): Obj {
  if (!/^[a-zA-Z0-9._-]+$/.test(name)) throw new Error(`Invalid service name '${name}' - only [a-zA-Z0-9\\._\\-] characters are allowed`);
  if (!isObj(svc)) throw new Error(`services.${name} contains an invalid type, it should be an object`);
  // Like the CLI, every problem of the service at once.
  const problems: string[] = [];
  for (const [k, v] of Object.entries(svc)) {
    const want = SHAPES[k];
    if (!SERVICE_KEYS.has(k) && !k.startsWith('x-')) problems.push(`Unsupported config option for services.${name}: '${k}'`);
    else if (want && !want.includes(shapeOf(v) as 'string'))
      problems.push(`services.${name}.${k} contains an invalid type, it should be ${want.map((w) => `a ${w}`).join(' or ')}`);
  }
  if (problems.length > 0) throw new Error(`The Compose file is invalid because:\n${problems.join('\n')}`);
  if (svc.image === undefined && svc.build === undefined) {
    throw new Error(`Service ${name} has neither an image nor a build context specified. At least one must be provided.`);
  }
  return svc;
}

const words = (v: unknown): string[] => (typeof v === 'string' ? v.split(/\s+/).filter(Boolean) : Array.isArray(v) ? v.map(String) : []);
const pairs = (v: unknown, sep: string): [string, string][] =>
  Array.isArray(v)
    ? v.map((x) => String(x)).map((x) => (x.includes(sep) ? [x.slice(0, x.indexOf(sep)), x.slice(x.indexOf(sep) + 1)] : [x, '']))
    : isObj(v)
      ? Object.entries(v).map(([k, x]) => [k, x === null || x === undefined ? '' : String(x)])
      : [];

function ports(v: unknown): FakeService['publish'] {
  const out: FakeService['publish'] = [];
  for (const p of Array.isArray(v) ? v : []) {
    if (isObj(p)) {
      if (p.published !== undefined)
        out.push({ port: `${p.target}/${p.protocol ?? 'tcp'}`, hostIp: String(p.host_ip ?? '0.0.0.0'), hostPort: Number(p.published) });
      continue;
    }
    const [spec = '', proto = 'tcp'] = String(p).split('/');
    const parts = spec.split(':');
    const target = parts.pop() ?? '';
    const hostPort = parts.pop();
    if (hostPort !== undefined) out.push({ port: `${target}/${proto}`, hostIp: parts.pop() ?? '0.0.0.0', hostPort: Number(hostPort) });
  }
  return out;
}

function mounts(v: unknown, dir: string, volumeName: (key: string) => string): MountSpec[] {
  const out: MountSpec[] = [];
  for (const m of Array.isArray(v) ? v : []) {
    const [source = '', target = '', mode = ''] = isObj(m) ? [String(m.source ?? ''), String(m.target ?? ''), m.read_only ? 'ro' : ''] : String(m).split(':');
    if (target === '') continue;
    const readOnly = mode.split(',').includes('ro');
    if (/^[./~]/.test(source)) out.push({ type: 'bind', source: isAbsolute(source) ? source : resolve(dir, source), target, readOnly });
    else if (source !== '') out.push({ type: 'volume', source: volumeName(source), target, readOnly });
  }
  return out;
}

/** The project's model; throws with the CLI's kind of words when `config` would refuse the files. */
export function loadProject(
  p: ComposeProject,
  o: { read: ReadFile; environment: Readonly<Record<string, string>>; variant: ComposeVariant },
): FakeProjectModel {
  const files = [p.file, ...(p.overrides ?? [])];
  const merged = files.map((f) => readDoc(f, o.read)).reduce(merge, {});
  const dotEnv = o.read(join(p.dir, '.env'));
  const env = { ...(dotEnv === null ? {} : parseDotEnv(dotEnv.toString())), ...o.environment };
  const doc = interpolateTree(merged, env, 'services') as Obj;
  const services = Object.entries(isObj(doc.services) ? doc.services : {}).map(([name, svc]) => [name, checkService(name, svc)] as const);
  const named = (kind: 'networks' | 'volumes') =>
    Object.entries(isObj(doc[kind]) ? (doc[kind] as Obj) : {}).map(([key, def]) => {
      const d = isObj(def) ? def : {};
      const external = d.external === true || isObj(d.external);
      return { key, external, name: typeof d.name === 'string' ? d.name : external ? key : `${p.name}_${key}` };
    });
  const networks = named('networks');
  const volumes = named('volumes');
  const netName = (key: string) => networks.find((n) => n.key === key)?.name ?? `${p.name}_${key}`;
  const sep = o.variant === 'v1' ? '_' : '-';
  const model = services.map(([name, svc]): FakeService => {
    const joined = isObj(svc.networks) ? Object.keys(svc.networks) : words(svc.networks);
    const mode = typeof svc.network_mode === 'string' ? [svc.network_mode] : null;
    const built = {
      name,
      containerName: typeof svc.container_name === 'string' ? svc.container_name : `${p.name}${sep}${name}${sep}1`,
      image: String(svc.image ?? `${p.name}${sep}${name}`),
      cmd: words(svc.command),
      entrypoint: svc.entrypoint === undefined ? null : words(svc.entrypoint),
      env: pairs(svc.environment, '=').map(([k, v]) => `${k}=${v}`),
      labels: Object.fromEntries(pairs(svc.labels, '=')),
      publish: ports(svc.ports),
      mounts: mounts(svc.volumes, p.dir, (key) => volumes.find((v) => v.key === key)?.name ?? `${p.name}_${key}`),
      networks: mode ?? (joined.length > 0 ? joined.map(netName) : [`${p.name}_default`]),
      user: typeof svc.user === 'string' ? svc.user : null,
      workingDir: typeof svc.working_dir === 'string' ? svc.working_dir : null,
    };
    return { ...built, hash: createHash('sha256').update(JSON.stringify(built)).digest('hex') };
  });
  const usesDefault = model.some((s) => s.networks.includes(`${p.name}_default`));
  return { services: model, networks: usesDefault ? [{ key: 'default', name: `${p.name}_default`, external: false }, ...networks] : networks, volumes };
}

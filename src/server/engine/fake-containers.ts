/**
 * The containers of the fake engine (fake-engine.ts) and the world they live in: created from an image it has, their
 * main process and execs run by the fake shell (fake-shell.ts), with the events, exit codes and logs the real engine
 * gives. Deterministic: ids and times count up.
 */
import { PassThrough } from 'node:stream';
import { AppError } from '../core/errors.ts';
import {
  COMPOSE_PROJECT_LABEL,
  COMPOSE_SERVICE_LABEL,
  COMPOSE_WORKDIR_LABEL,
  type ContainerSpec,
  type ContainerSummary,
  EXEC_OUTPUT_LIMIT,
  type LogOptions,
  type RunOptions,
  type RunResult,
} from './engine.ts';
import { createEventHub, type EventHub } from './fake-events.ts';
import { createImages, createNetworks, createVolumes } from './fake-resources.ts';
import { BUILTINS, type Program, type ProgramOutput, runCommand } from './fake-shell.ts';

export interface FakeContainer {
  id: string;
  name: string;
  spec: ContainerSpec;
  imageId: string;
  created: number;
  state: 'created' | 'running' | 'exited';
  exitCode: number;
  logs: { stream: 'stdout' | 'stderr'; text: string; at: number }[];
  followers: Set<PassThrough>;
  networks: Record<string, string | null>;
  /** Set by `put`: the listing as given, answered as is. */
  fixed?: ContainerSummary;
}

const notFound = (id: string) => new AppError('not_found', `container '${id}' does not exist`, { params: { what: 'container', name: id } });
const notRunning = (name: string, state: string) =>
  new AppError('conflict', `container '${name}' is ${state}, so nothing can run inside it`, { params: { name, state } });
/** Output cut off after `limit` bytes, as the adapter does. */
export const cap = (s: string | undefined, limit = EXEC_OUTPUT_LIMIT) =>
  Buffer.from(s ?? '')
    .subarray(0, limit)
    .toString('utf8');
const BASE_SECONDS = 1_700_000_000;

/** Everything the fake engine holds. */
export interface World {
  containers: Map<string, FakeContainer>;
  hub: EventHub;
  files: Map<string, string>;
  interfaces: string[];
  images: ReturnType<typeof createImages>;
  networks: ReturnType<typeof createNetworks>;
  volumes: ReturnType<typeof createVolumes>;
  programs: Record<string, Program>;
  /** The next number of the fake's one counter (ids, times). */
  tick(): number;
}

export function createWorld(): World {
  const interfaces = ['eth0'];
  let n = 0;
  return {
    containers: new Map(),
    hub: createEventHub(),
    files: new Map(),
    interfaces,
    images: createImages(),
    networks: createNetworks(() => interfaces),
    volumes: createVolumes(),
    programs: { ...BUILTINS },
    tick: () => ++n,
  };
}

export function find(w: World, idOrName: string): FakeContainer {
  const key = idOrName.replace(/^\//, '');
  const all = [...w.containers.values()];
  const byPrefix = key === '' ? [] : all.filter((x) => x.id.startsWith(key));
  const c = w.containers.get(key) ?? all.find((x) => x.name === key) ?? (byPrefix.length === 1 ? byPrefix[0] : undefined);
  if (!c) throw notFound(idOrName);
  return c;
}

export function emit(w: World, c: FakeContainer, action: string, extra: Record<string, string> = {}): void {
  const labels = { ...(c.spec.labels ?? {}), ...extra };
  w.hub.publish({ action, id: c.id, name: c.name, labels, exitCode: action === 'die' ? c.exitCode : null });
}

export function summary(c: FakeContainer): ContainerSummary {
  if (c.fixed) return structuredClone(c.fixed);
  const labels = { ...(c.spec.labels ?? {}) };
  const running = c.state === 'running';
  const ports = running
    ? [
        ...(c.spec.publish ?? []).map((p) => ({
          host_ip: p.hostIp,
          host_port: p.hostPort,
          container_port: Number.parseInt(p.port, 10),
          protocol: p.port.split('/')[1] ?? 'tcp',
        })),
        ...(c.spec.expose ?? []).map((p) => ({ host_ip: null, host_port: null, container_port: Number.parseInt(p, 10), protocol: p.split('/')[1] ?? 'tcp' })),
      ]
    : [];
  return {
    id: c.id,
    name: c.name,
    image: c.spec.image,
    state: c.state,
    status: c.state === 'running' ? 'Up 1 second' : c.state === 'exited' ? `Exited (${c.exitCode}) 1 second ago` : 'Created',
    health: null,
    ports,
    labels,
    project: labels[COMPOSE_PROJECT_LABEL] ?? null,
    service: labels[COMPOSE_SERVICE_LABEL] ?? null,
    workingDir: labels[COMPOSE_WORKDIR_LABEL] ?? null,
    created: c.created,
    networks: Object.fromEntries(Object.entries(c.networks).map(([k, ip]) => [k, running ? ip : null])),
  };
}

export function inspect(c: FakeContainer): Record<string, unknown> {
  const s = summary(c);
  return {
    Id: c.id,
    Name: `/${c.name}`,
    Created: new Date(c.created * 1000).toISOString(),
    Image: c.imageId,
    Config: {
      Image: c.spec.image,
      Labels: s.labels,
      Env: c.spec.env ?? [],
      Cmd: c.spec.cmd,
      Tty: false,
      User: c.spec.user ?? '',
      WorkingDir: c.spec.workingDir ?? '',
    },
    State: { Status: c.state, Running: c.state === 'running', Paused: false, ExitCode: c.exitCode },
    HostConfig: { AutoRemove: c.spec.autoRemove ?? false, NetworkMode: c.spec.network ?? 'bridge', Privileged: c.spec.powers === 'privileged' },
    Mounts: (c.spec.mounts ?? []).map((m) => ({
      Type: m.type,
      Source: m.source,
      ...(m.type === 'volume' ? { Name: m.source } : {}),
      Destination: m.target,
      RW: !m.readOnly,
    })),
    NetworkSettings: { Networks: Object.fromEntries(Object.entries(s.networks ?? {}).map(([k, ip]) => [k, { IPAddress: ip ?? '' }])) },
  };
}

export function run(w: World, c: FakeContainer, cmd: string[], o: { env?: string[] | undefined; user?: string | undefined; stdin?: string }): ProgramOutput {
  const env = Object.fromEntries([...(c.spec.env ?? []), ...(o.env ?? [])].map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  const log = (text: string) => write(w, c, 'stdout', text);
  return runCommand(cmd, { stdin: o.stdin ?? '', env, user: o.user ?? c.spec.user ?? null, files: w.files, toMain: log }, w.programs);
}

export function write(w: World, c: FakeContainer, stream: 'stdout' | 'stderr', text: string): void {
  for (const line of text.split(/(?<=\n)/)) {
    if (line === '') continue;
    c.logs.push({ stream, text: line, at: BASE_SECONDS + w.tick() });
    for (const f of c.followers) f.write(line);
  }
}

export function stopped(c: FakeContainer, exitCode: number): void {
  delete c.fixed;
  c.state = 'exited';
  c.exitCode = exitCode;
  for (const f of c.followers) f.end();
  c.followers.clear();
}

export function create(w: World, spec: ContainerSpec): FakeContainer {
  const image = w.images.inspect(spec.image);
  if (!image) throw new AppError('not_found', `the image '${spec.image}' is not present on the engine`, { params: { what: 'image', name: spec.image } });
  const seq = w.tick();
  const id = `${seq.toString(16).padStart(12, '0')}${'c'.repeat(52)}`;
  const name = spec.name ?? `fake_${id.slice(0, 12)}`;
  const taken = [...w.containers.values()].find((x) => x.name === name);
  if (taken) {
    throw new AppError(
      'conflict',
      `Conflict. The container name "/${name}" is already in use by container "${taken.id}". You have to remove (or rename) that container to be able to reuse that name.`,
    );
  }
  const network = spec.network ?? 'bridge';
  if (!w.networks.get(network))
    throw new AppError('not_found', `the engine cannot create the container: network ${network} not found`, { params: { what: 'network', name: network } });
  for (const m of spec.mounts ?? []) if (m.type === 'volume') w.volumes.add(m.source);
  const c: FakeContainer = {
    id,
    name,
    spec: structuredClone(spec),
    imageId: image.id,
    created: BASE_SECONDS + seq,
    state: 'created',
    exitCode: 0,
    logs: [],
    followers: new Set(),
    networks: { [network]: null },
  };
  w.containers.set(id, c);
  emit(w, c, 'create');
  return c;
}

/** `docker network connect`: the container joins another network (compose does it for a service's second and later ones). */
export function attach(w: World, c: FakeContainer, network: string): void {
  if (!w.networks.get(network)) throw new AppError('not_found', `network ${network} not found`, { params: { what: 'network', name: network } });
  if (network in c.networks) return;
  c.networks[network] = c.state === 'running' ? w.networks.address(network) : null;
}

/** The main process: its output goes to the log; one that ends makes the container exit (and go, with autoRemove). */
export function start(w: World, c: FakeContainer): void {
  if (c.state === 'running') return;
  delete c.fixed;
  for (const net of Object.keys(c.networks)) c.networks[net] = w.networks.address(net);
  c.state = 'running';
  emit(w, c, 'start');
  const cmd = [...(c.spec.entrypoint ?? []), ...c.spec.cmd];
  const out: ProgramOutput = cmd.length === 0 ? { exitCode: 0, runsMs: Number.POSITIVE_INFINITY } : run(w, c, cmd, {});
  for (const o of out.output ?? [
    { stream: 'stdout' as const, text: out.stdout ?? '' },
    { stream: 'stderr' as const, text: out.stderr ?? '' },
  ])
    write(w, c, o.stream, o.text);
  if (out.runsMs) return;
  ended(w, c, out.exitCode);
}

export function ended(w: World, c: FakeContainer, exitCode: number): void {
  stopped(c, exitCode);
  emit(w, c, 'die');
  if (c.spec.autoRemove) remove(w, c);
}

export function stop(w: World, c: FakeContainer): void {
  if (c.state !== 'running') return;
  emit(w, c, 'kill', { signal: '15' });
  stopped(c, 143);
  emit(w, c, 'die');
  emit(w, c, 'stop');
  if (c.spec.autoRemove) remove(w, c);
}

export function remove(w: World, c: FakeContainer): void {
  if (c.state === 'running') {
    emit(w, c, 'kill', { signal: '9' });
    stopped(c, 137);
    emit(w, c, 'die');
  }
  w.containers.delete(c.id);
  emit(w, c, 'destroy');
}

export function logs(c: FakeContainer, o: LogOptions): NodeJS.ReadableStream {
  const since = o.since ?? 0;
  const tail = o.tail ?? 200;
  const lines = tail === 0 ? [] : c.logs.filter((l) => l.at >= since).slice(-tail);
  const text = (l: { text: string; at: number }) => (o.timestamps ? `${new Date(l.at * 1000).toISOString()} ${l.text}` : l.text);
  const out = new PassThrough();
  for (const l of lines) out.write(text(l));
  if (o.follow && c.state === 'running') c.followers.add(out);
  else out.end();
  out.on('close', () => c.followers.delete(out));
  return out;
}

type ExecRun = { env?: string[] | undefined; user?: string | undefined; stdin?: string; timeoutMs?: number | undefined };

/** A command inside a running container; one that runs past its time-out fails as the adapter's does. */
export function execIn(w: World, c: FakeContainer, cmd: string[], o: ExecRun): ProgramOutput {
  if (c.state !== 'running') throw notRunning(c.name, 'not running');
  const out = run(w, c, cmd, o);
  const timeoutMs = o.timeoutMs ?? 60_000;
  if ((out.runsMs ?? 0) >= timeoutMs) {
    throw new AppError('engine_unreachable', `command in container '${c.name}' did not finish within ${timeoutMs} ms`, { params: { name: c.name } });
  }
  return out;
}

/** Engine.execStream: the output once stdin ended; the exit code once the output was read, as over the real connection. */
export function execStreamIn(w: World, c: FakeContainer, o: { cmd: string[]; env?: string[]; user?: string; stdin?: NodeJS.ReadableStream }) {
  if (c.state !== 'running') throw notRunning(c.name, 'not running');
  const stdout = new PassThrough();
  const done = (async () => {
    let stdin = '';
    if (o.stdin) for await (const chunk of o.stdin) stdin += chunk.toString();
    const out = execIn(w, c, o.cmd, { ...o, stdin });
    const read = new Promise<void>((r) => stdout.once('end', () => r()));
    stdout.end(out.stdout ?? '');
    await read;
    return { exitCode: out.exitCode, stderr: cap(out.stderr) };
  })();
  done.catch((e: unknown) => stdout.destroy(e as Error));
  return { stdout, done };
}

/** Engine.runContainer: created, run to its end (or past its time-out), removed. */
export function runOnce(w: World, spec: ContainerSpec, o: RunOptions): RunResult {
  const c = create(w, spec);
  try {
    for (const net of Object.keys(c.networks)) c.networks[net] = w.networks.address(net);
    c.state = 'running';
    emit(w, c, 'start');
    const out = run(w, c, [...(spec.entrypoint ?? []), ...spec.cmd], {});
    if ((out.runsMs ?? 0) >= o.timeoutMs) {
      throw new AppError('engine_unreachable', `the container of '${spec.image}' did not finish within ${o.timeoutMs / 1000} s`, {
        params: { reason: 'timeout' },
      });
    }
    stopped(c, out.exitCode);
    emit(w, c, 'die');
    return { exitCode: out.exitCode, stdout: cap(out.stdout, o.outputLimit), stderr: cap(out.stderr, o.outputLimit) };
  } finally {
    if (w.containers.has(c.id)) remove(w, c);
  }
}

/** A restart is no exit: a container the engine removes on exit stays. */
export function restart(w: World, c: FakeContainer): void {
  const autoRemove = c.spec.autoRemove === true;
  c.spec.autoRemove = false;
  stop(w, c);
  c.spec.autoRemove = autoRemove;
  start(w, c);
  emit(w, c, 'restart');
}

/** A container as a listing shows it, put with no event. */
export function put(w: World, s: ContainerSummary): void {
  const had = w.containers.get(s.id);
  const spec: ContainerSpec = { image: s.image, cmd: [], labels: s.labels };
  w.containers.set(s.id, {
    ...(had ?? { id: s.id, name: s.name, spec, imageId: '', created: s.created, exitCode: 0, logs: [], followers: new Set<PassThrough>(), networks: {} }),
    state: s.state === 'running' ? 'running' : s.state === 'created' ? 'created' : 'exited',
    fixed: structuredClone(s),
  });
}

/** Engine.listContainers over the world. */
export function listing(w: World, o: { composeOnly?: boolean; project?: string; ids?: string[] } = {}): ContainerSummary[] {
  return [...w.containers.values()]
    .map(summary)
    .filter((c) => (o.project ? c.project === o.project : o.composeOnly ? c.project !== null : true))
    .filter((c) => !o.ids || o.ids.some((id) => c.id.startsWith(id)))
    .sort((a, b) => b.created - a.created);
}

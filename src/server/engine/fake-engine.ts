/**
 * An in-memory Engine for unit tests: containers that run the fake shell's commands (fake-shell.ts), images, a
 * registry to pull from, networks, volumes and the event stream, answering as the Docker adapter does over a real
 * daemon (`engine.contract.ts` runs the same cases on both). Deterministic: ids, times and addresses count up, and
 * nothing waits for a clock. Switches: `failOn` fails a named call (the nth from now, or several), `hold` keeps
 * answers of a call back until released, `down` takes the whole engine away, `cut` ends the open event streams.
 */
import { PassThrough } from 'node:stream';
import { AppError } from '../core/errors.ts';
import {
  COMPOSE_PROJECT_LABEL,
  COMPOSE_SERVICE_LABEL,
  COMPOSE_WORKDIR_LABEL,
  type ContainerEvent,
  type ContainerSpec,
  type ContainerSummary,
  type Engine,
  EXEC_OUTPUT_LIMIT,
  type LogOptions,
} from './engine.ts';
import { createEventHub } from './fake-events.ts';
import { createImages, createNetworks, createVolumes } from './fake-resources.ts';
import { BUILTINS, type Program, type ProgramOutput, runCommand } from './fake-shell.ts';
import { createSwitches, type FaultOptions } from './fake-switches.ts';

export type EngineMethod = keyof Engine;

interface FakeContainer {
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

export interface FakeEngine extends Engine {
  /** Every call, in order, with its arguments. */
  calls: { method: EngineMethod; args: unknown[] }[];
  /**
   * Makes calls of `method` ('*': any call) fail with `error` (default: the engine cannot be reached) before they
   * act: the `nth` call from now (1 = the next) and `times` calls from there (default 1); without `nth`, every call.
   * The function it returns ends the failures.
   */
  failOn(method: EngineMethod | '*', opts?: FaultOptions): () => void;
  /** Calls of `method` from now on answer (with what the engine had when asked) only once the returned function is called. */
  hold(method: EngineMethod): () => void;
  /** Takes the engine away (every call fails as with no socket, open event streams end) or brings it back. */
  down(on: boolean): void;
  /** An image the engine has; answers its id. */
  addImage(ref: string, opts?: { digests?: string[] }): string;
  /** An image the registry offers to `pullImage`. */
  offerImage(ref: string, opts?: { digests?: string[] }): void;
  addVolume(name: string, labels?: Record<string, string>): void;
  /** A program the containers can run, beside the fake shell's built-ins. */
  program(name: string, fn: Program): void;
  /** Files the containers see, by absolute path (the host probe's socket tables). */
  files: Map<string, string>;
  /** Host interfaces a macvlan network may take as its parent. */
  interfaces: string[];
  /** Puts a container as a listing shows it, with no event (as a change the event stream missed). */
  put(c: ContainerSummary): void;
  /** The main process of a running container ends by itself (a crash): it exits with `exitCode`, with a `die` event. */
  exit(idOrName: string, exitCode: number): void;
  /** Sends a container event as the engine would (for consumers of the stream); labels are the container's unless given. */
  push(e: Partial<ContainerEvent> & { action: string; name: string }): void;
  /** Ends the open event streams, as an engine restart does. */
  cut(): void;
  /** The `since` of every event stream asked for, also of those that failed. */
  connects: (string | undefined)[];
}

const unreachable = () => {
  const cause = Object.assign(new Error('connect ECONNREFUSED /var/run/docker.sock'), { code: 'ECONNREFUSED' });
  return new AppError('engine_unreachable', `container engine not reachable: ${cause.message}`, { cause });
};
const notFound = (id: string) => new AppError('not_found', `container '${id}' does not exist`, { params: { what: 'container', name: id } });
const notRunning = (name: string, state: string) =>
  new AppError('conflict', `container '${name}' is ${state}, so nothing can run inside it`, { params: { name, state } });
const cap = (s: string | undefined, limit = EXEC_OUTPUT_LIMIT) =>
  Buffer.from(s ?? '')
    .subarray(0, limit)
    .toString('utf8');
const BASE_SECONDS = 1_700_000_000;

export function createFakeEngine(): FakeEngine {
  const containers = new Map<string, FakeContainer>();
  const hub = createEventHub();
  const files = new Map<string, string>();
  const interfaces = ['eth0'];
  const images = createImages();
  const networks = createNetworks(() => interfaces);
  const volumes = createVolumes();
  const programs: Record<string, Program> = { ...BUILTINS };
  const calls: FakeEngine['calls'] = [];
  const switches = createSwitches<EngineMethod>();
  let isDown = false;
  let n = 0;
  const tick = () => ++n;

  function find(idOrName: string): FakeContainer {
    const key = idOrName.replace(/^\//, '');
    const all = [...containers.values()];
    const byPrefix = key === '' ? [] : all.filter((x) => x.id.startsWith(key));
    const c = containers.get(key) ?? all.find((x) => x.name === key) ?? (byPrefix.length === 1 ? byPrefix[0] : undefined);
    if (!c) throw notFound(idOrName);
    return c;
  }

  function emit(c: FakeContainer, action: string, extra: Record<string, string> = {}): void {
    const labels = { ...(c.spec.labels ?? {}), ...extra };
    hub.publish({ action, id: c.id, name: c.name, labels, exitCode: action === 'die' ? c.exitCode : null });
  }

  function summary(c: FakeContainer): ContainerSummary {
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

  function inspect(c: FakeContainer): Record<string, unknown> {
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

  function run(c: FakeContainer, cmd: string[], o: { env?: string[] | undefined; user?: string | undefined; stdin?: string }): ProgramOutput {
    const env = Object.fromEntries([...(c.spec.env ?? []), ...(o.env ?? [])].map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
    const log = (text: string) => write(c, 'stdout', text);
    return runCommand(cmd, { stdin: o.stdin ?? '', env, user: o.user ?? c.spec.user ?? null, files, toMain: log }, programs);
  }

  function write(c: FakeContainer, stream: 'stdout' | 'stderr', text: string): void {
    for (const line of text.split(/(?<=\n)/)) {
      if (line === '') continue;
      c.logs.push({ stream, text: line, at: BASE_SECONDS + tick() });
      for (const f of c.followers) f.write(line);
    }
  }

  function stopped(c: FakeContainer, exitCode: number): void {
    delete c.fixed;
    c.state = 'exited';
    c.exitCode = exitCode;
    for (const f of c.followers) f.end();
    c.followers.clear();
  }

  function create(spec: ContainerSpec): FakeContainer {
    const image = images.inspect(spec.image);
    if (!image) throw new AppError('not_found', `the image '${spec.image}' is not present on the engine`, { params: { what: 'image', name: spec.image } });
    const id = `${tick().toString(16).padStart(12, '0')}${'c'.repeat(52)}`;
    const name = spec.name ?? `fake_${id.slice(0, 12)}`;
    const taken = [...containers.values()].find((x) => x.name === name);
    if (taken) {
      throw new AppError(
        'conflict',
        `Conflict. The container name "/${name}" is already in use by container "${taken.id}". You have to remove (or rename) that container to be able to reuse that name.`,
      );
    }
    const network = spec.network ?? 'bridge';
    if (!networks.get(network))
      throw new AppError('not_found', `the engine cannot create the container: network ${network} not found`, { params: { what: 'network', name: network } });
    for (const m of spec.mounts ?? []) if (m.type === 'volume') volumes.add(m.source);
    const c: FakeContainer = {
      id,
      name,
      spec: structuredClone(spec),
      imageId: image.id,
      created: BASE_SECONDS + n,
      state: 'created',
      exitCode: 0,
      logs: [],
      followers: new Set(),
      networks: { [network]: null },
    };
    containers.set(id, c);
    emit(c, 'create');
    return c;
  }

  /** The main process: its output goes to the log; one that ends makes the container exit (and go, with autoRemove). */
  function start(c: FakeContainer): void {
    if (c.state === 'running') return;
    delete c.fixed;
    for (const net of Object.keys(c.networks)) c.networks[net] = networks.address(net);
    c.state = 'running';
    emit(c, 'start');
    const cmd = [...(c.spec.entrypoint ?? []), ...c.spec.cmd];
    const out: ProgramOutput = cmd.length === 0 ? { exitCode: 0, runsMs: Number.POSITIVE_INFINITY } : run(c, cmd, {});
    for (const o of out.output ?? [
      { stream: 'stdout' as const, text: out.stdout ?? '' },
      { stream: 'stderr' as const, text: out.stderr ?? '' },
    ])
      write(c, o.stream, o.text);
    if (out.runsMs) return;
    ended(c, out.exitCode);
  }

  function ended(c: FakeContainer, exitCode: number): void {
    stopped(c, exitCode);
    emit(c, 'die');
    if (c.spec.autoRemove) remove(c);
  }

  function stop(c: FakeContainer): void {
    if (c.state !== 'running') return;
    emit(c, 'kill', { signal: '15' });
    stopped(c, 143);
    emit(c, 'die');
    emit(c, 'stop');
    if (c.spec.autoRemove) remove(c);
  }

  function remove(c: FakeContainer): void {
    if (c.state === 'running') {
      emit(c, 'kill', { signal: '9' });
      stopped(c, 137);
      emit(c, 'die');
    }
    containers.delete(c.id);
    emit(c, 'destroy');
  }

  function logs(c: FakeContainer, o: LogOptions): NodeJS.ReadableStream {
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

  function enter(method: EngineMethod, args: unknown[]): void {
    calls.push({ method, args });
    if (isDown) throw unreachable();
    const fault = switches.fault(method);
    if (fault) throw fault.error ?? unreachable();
  }

  /** A method with the switches: recorded, maybe failed, its answer (taken when asked) maybe held back. */
  function op<A extends unknown[], R>(method: EngineMethod, fn: (...args: A) => R | Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      enter(method, args);
      const answer = await fn(...args);
      await switches.passed(method);
      return answer;
    };
  }

  function exec(c: FakeContainer, cmd: string[], o: { env?: string[] | undefined; user?: string | undefined; stdin?: string; timeoutMs?: number | undefined }) {
    if (c.state !== 'running') throw notRunning(c.name, 'not running');
    const out = run(c, cmd, o);
    const timeoutMs = o.timeoutMs ?? 60_000;
    if ((out.runsMs ?? 0) >= timeoutMs) {
      throw new AppError('engine_unreachable', `command in container '${c.name}' did not finish within ${timeoutMs} ms`, { params: { name: c.name } });
    }
    return out;
  }

  const engine: Engine = {
    ping: op('ping', () => ({ version: '27.0.0-fake', apiVersion: '1.46' })),
    listContainers: op('listContainers', (o: Parameters<Engine['listContainers']>[0] = {}) =>
      [...containers.values()]
        .map(summary)
        .filter((c) => (o.project ? c.project === o.project : o.composeOnly ? c.project !== null : true))
        .filter((c) => !o.ids || o.ids.some((id) => c.id.startsWith(id)))
        .sort((a, b) => b.created - a.created),
    ),
    inspectContainer: op('inspectContainer', (id: string) => inspect(find(id))),
    inspectImage: op('inspectImage', (ref: string) => images.inspect(ref)),
    listImageTags: op('listImageTags', (repository: string) => images.tags(repository)),
    startContainer: op('startContainer', (id: string) => start(find(id))),
    stopContainer: op('stopContainer', (id: string) => stop(find(id))),
    restartContainer: op('restartContainer', (id: string) => {
      const c = find(id);
      // A restart is no exit: a container the engine removes on exit stays.
      const autoRemove = c.spec.autoRemove === true;
      c.spec.autoRemove = false;
      stop(c);
      c.spec.autoRemove = autoRemove;
      start(c);
      emit(c, 'restart');
    }),
    removeContainer: op('removeContainer', (id: string) => remove(find(id))),
    containerLogs: op('containerLogs', (id: string, o: LogOptions) => logs(find(id), o)),
    exec: op('exec', (id: string, o: Parameters<Engine['exec']>[1]) => {
      const out = exec(find(id), o.cmd, o);
      return { exitCode: out.exitCode, stdout: cap(out.stdout), stderr: cap(out.stderr) };
    }),
    execStream: op('execStream', async (id: string, o: Parameters<Engine['execStream']>[1]) => {
      const c = find(id);
      if (c.state !== 'running') throw notRunning(c.name, 'not running');
      const stdout = new PassThrough();
      const done = (async () => {
        let stdin = '';
        if (o.stdin) for await (const chunk of o.stdin) stdin += chunk.toString();
        const out = exec(c, o.cmd, { ...o, stdin });
        // As over the real connection: the exit code is known once the output was read.
        const read = new Promise<void>((r) => stdout.once('end', () => r()));
        stdout.end(out.stdout ?? '');
        await read;
        return { exitCode: out.exitCode, stderr: cap(out.stderr) };
      })();
      done.catch((e: unknown) => stdout.destroy(e as Error));
      return { stdout, done };
    }),
    listVolumes: op('listVolumes', (o: { project: string }) => volumes.list(o.project)),
    removeVolume: op('removeVolume', (name: string) =>
      volumes.remove(name, [...containers.values()].find((c) => c.spec.mounts?.some((m) => m.type === 'volume' && m.source === name))?.id ?? null),
    ),
    listNetworks: op('listNetworks', () => networks.list()),
    createNetwork: op('createNetwork', (spec: Parameters<Engine['createNetwork']>[0]) => networks.create(spec)),
    removeNetwork: op('removeNetwork', (name: string) =>
      networks.remove(name, (net) => [...containers.values()].some((c) => c.state === 'running' && net in c.networks)),
    ),
    containerEvents: (o) => {
      // Every attempt counts, also one an engine that is down refuses.
      hub.connects.push(o.since);
      return op('containerEvents', () => hub.open(o))();
    },
    createContainer: op('createContainer', (spec: ContainerSpec) => create(spec).id),
    runContainer: op('runContainer', (spec: ContainerSpec, o: Parameters<Engine['runContainer']>[1]) => {
      const c = create(spec);
      try {
        for (const net of Object.keys(c.networks)) c.networks[net] = networks.address(net);
        c.state = 'running';
        emit(c, 'start');
        const out = run(c, [...(spec.entrypoint ?? []), ...spec.cmd], {});
        if ((out.runsMs ?? 0) >= o.timeoutMs) {
          throw new AppError('engine_unreachable', `the container of '${spec.image}' did not finish within ${o.timeoutMs / 1000} s`, {
            params: { reason: 'timeout' },
          });
        }
        stopped(c, out.exitCode);
        emit(c, 'die');
        return { exitCode: out.exitCode, stdout: cap(out.stdout, o.outputLimit), stderr: cap(out.stderr, o.outputLimit) };
      } finally {
        if (containers.has(c.id)) remove(c);
      }
    }),
    pullImage: op('pullImage', (ref: string, o: Parameters<Engine['pullImage']>[1] = {}) => images.pull(ref, o.onStep)),
  };

  return {
    ...engine,
    calls,
    files,
    interfaces,
    connects: hub.connects,
    failOn: switches.failOn,
    hold: switches.hold,
    down(on) {
      isDown = on;
      if (on) hub.cut();
    },
    addImage: (ref, o = {}) => images.add(ref, o.digests),
    offerImage: (ref, o = {}) => images.offer(ref, o.digests),
    addVolume: (name, labels) => volumes.add(name, labels),
    program(name, fn) {
      programs[name] = fn;
    },
    put(c) {
      const had = containers.get(c.id);
      const spec: ContainerSpec = { image: c.image, cmd: [], labels: c.labels };
      containers.set(c.id, {
        ...(had ?? { id: c.id, name: c.name, spec, imageId: '', created: c.created, exitCode: 0, logs: [], followers: new Set<PassThrough>(), networks: {} }),
        state: c.state === 'running' ? 'running' : c.state === 'created' ? 'created' : 'exited',
        fixed: structuredClone(c),
      });
    },
    exit(idOrName, exitCode) {
      const c = find(idOrName);
      if (c.state === 'running') ended(c, exitCode);
    },
    push(e) {
      const id = e.id ?? e.name;
      const labels = containers.get(id)?.spec.labels ?? {};
      hub.publish({ id, labels: { ...labels }, exitCode: null, ...e });
    },
    cut: () => hub.cut(),
  };
}

/**
 * An in-memory Engine for unit tests: containers that run the fake shell's commands (fake-containers.ts,
 * fake-shell.ts), images, a registry to pull from, networks, volumes and the event stream, answering as the Docker
 * adapter does over a real daemon (`engine.contract.ts` runs the same cases on both). Deterministic: ids, times and
 * addresses count up, and nothing waits for a clock. Switches: `failOn` fails a named call (the nth from now, or
 * several), `hold` keeps answers of a call back until released, `down` takes the whole engine away, `cut` ends the
 * open event streams.
 */
import { AppError } from '../core/errors.ts';
import type { ContainerEvent, ContainerSpec, ContainerSummary, Engine, LogOptions } from './engine.ts';
import {
  attach,
  cap,
  create,
  createWorld,
  ended,
  execIn,
  execStreamIn,
  find,
  inspect,
  listing,
  logs,
  put,
  remove,
  restart,
  runOnce,
  start,
  stop,
  type World,
} from './fake-containers.ts';
import type { Program } from './fake-shell.ts';
import { createSwitches, type FaultOptions } from './fake-switches.ts';

export type EngineMethod = keyof Engine;

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
  /** A container joins another network, as `docker network connect` does (compose for a service's other networks). */
  attach(idOrName: string, network: string): void;
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

type Op = <A extends unknown[], R>(method: EngineMethod, fn: (...args: A) => R | Promise<R>) => (...args: A) => Promise<R>;

/** The Engine's methods over the world, each wrapped by `op` (recorded, maybe failed or held). */
function methods(w: World, op: Op): Engine {
  const usedBy = (volume: string) => [...w.containers.values()].find((c) => c.spec.mounts?.some((m) => m.type === 'volume' && m.source === volume))?.id ?? null;
  const attached = (net: string) => [...w.containers.values()].some((c) => c.state === 'running' && net in c.networks);
  return {
    ping: op('ping', () => ({ version: '27.0.0-fake', apiVersion: '1.46' })),
    listContainers: op('listContainers', (o?: Parameters<Engine['listContainers']>[0]) => listing(w, o)),
    inspectContainer: op('inspectContainer', (id: string) => inspect(find(w, id))),
    inspectImage: op('inspectImage', (ref: string) => w.images.inspect(ref)),
    listImageTags: op('listImageTags', (repository: string) => w.images.tags(repository)),
    startContainer: op('startContainer', (id: string) => start(w, find(w, id))),
    stopContainer: op('stopContainer', (id: string) => stop(w, find(w, id))),
    restartContainer: op('restartContainer', (id: string) => restart(w, find(w, id))),
    removeContainer: op('removeContainer', (id: string) => remove(w, find(w, id))),
    containerLogs: op('containerLogs', (id: string, o: LogOptions) => logs(find(w, id), o)),
    exec: op('exec', (id: string, o: Parameters<Engine['exec']>[1]) => {
      const out = execIn(w, find(w, id), o.cmd, o);
      return { exitCode: out.exitCode, stdout: cap(out.stdout), stderr: cap(out.stderr) };
    }),
    execStream: op('execStream', (id: string, o: Parameters<Engine['execStream']>[1]) => execStreamIn(w, find(w, id), o)),
    listVolumes: op('listVolumes', (o: { project: string }) => w.volumes.list(o.project)),
    removeVolume: op('removeVolume', (name: string) => w.volumes.remove(name, usedBy(name))),
    listNetworks: op('listNetworks', () => w.networks.list()),
    createNetwork: op('createNetwork', (spec: Parameters<Engine['createNetwork']>[0]) => w.networks.create(spec)),
    removeNetwork: op('removeNetwork', (name: string) => w.networks.remove(name, attached)),
    containerEvents: (o) => {
      // Every attempt counts, also one an engine that is down refuses.
      w.hub.connects.push(o.since);
      return op('containerEvents', () => w.hub.open(o))();
    },
    createContainer: op('createContainer', (spec: ContainerSpec) => create(w, spec).id),
    runContainer: op('runContainer', (spec: ContainerSpec, o: Parameters<Engine['runContainer']>[1]) => runOnce(w, spec, o)),
    pullImage: op('pullImage', (ref: string, o: Parameters<Engine['pullImage']>[1] = {}) => w.images.pull(ref, o.onStep)),
  };
}

export function createFakeEngine(): FakeEngine {
  const w = createWorld();
  const calls: FakeEngine['calls'] = [];
  const switches = createSwitches<EngineMethod>();
  let isDown = false;
  const op: Op =
    (method, fn) =>
    async (...args) => {
      calls.push({ method, args });
      if (isDown) throw unreachable();
      const fault = switches.fault(method);
      if (fault) throw fault.error ?? unreachable();
      const answer = await fn(...args);
      await switches.passed(method);
      return answer;
    };
  return {
    ...methods(w, op),
    calls,
    files: w.files,
    interfaces: w.interfaces,
    connects: w.hub.connects,
    failOn: switches.failOn,
    hold: switches.hold,
    down(on) {
      isDown = on;
      if (on) w.hub.cut();
    },
    addImage: (ref, o = {}) => w.images.add(ref, o.digests),
    offerImage: (ref, o = {}) => w.images.offer(ref, o.digests),
    addVolume: (name, labels) => w.volumes.add(name, labels),
    attach: (idOrName, network) => attach(w, find(w, idOrName), network),
    program(name: string, fn: Program) {
      w.programs[name] = fn;
    },
    put: (c: ContainerSummary) => put(w, c),
    exit(idOrName, exitCode) {
      const c = find(w, idOrName);
      if (c.state === 'running') ended(w, c, exitCode);
    },
    push(e: Partial<ContainerEvent> & { action: string; name: string }) {
      const id = e.id ?? e.name;
      const labels = w.containers.get(id)?.spec.labels ?? {};
      w.hub.publish({ id, labels: { ...labels }, exitCode: null, ...e });
    },
    cut: () => w.hub.cut(),
  };
}

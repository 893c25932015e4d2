import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import type { EngineEndpoint } from '../config/config.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import { call, change, orMissing, translate } from './docker-errors.ts';
import { dockerContainerEvents } from './docker-events.ts';
import { createDemuxer, demuxBuffer, execIn, execStreamIn } from './docker-exec.ts';
import { createContainer, runContainer } from './docker-run.ts';
import {
  COMPOSE_PROJECT_LABEL,
  COMPOSE_SERVICE_LABEL,
  COMPOSE_WORKDIR_LABEL,
  type ContainerSummary,
  type Engine,
  type LogOptions,
  type NetworkSpec,
  type NetworkSummary,
} from './engine.ts';
import { createEngineApi, type EngineApi } from './engine-api.ts';
import { pullImage } from './image-pull.ts';

/**
 * How long a read (version, listings, inspects) may take: an engine that accepts connections and never
 * answers (hung, or its socket held by something else) must not hang the app list or a job forever.
 * Changes (start, stop, exec, log streams) keep no such bound: they may take long by nature.
 */
export const ENGINE_READ_TIMEOUT_MS = 20_000;

const statusOf = (err: unknown): number | undefined => (err as { statusCode?: number } | null)?.statusCode;
/** A container, volume, network or exec id or name as one path segment. */
const seg = encodeURIComponent;
/** An image reference keeps its slashes, colon and digest: the engine's route takes the rest of the path. */
const imagePath = (ref: string) =>
  ref
    .split('/')
    .map((p) => encodeURIComponent(p).replace(/%3A/gi, ':').replace(/%40/g, '@'))
    .join('/');

function summarise(c: Docker.ContainerInfo): ContainerSummary {
  const labels = c.Labels ?? {};
  const health = /\((healthy|unhealthy|health: starting)\)/.exec(c.Status ?? '')?.[1] ?? null;
  return {
    id: c.Id,
    name: (c.Names?.[0] ?? c.Id).replace(/^\//, ''),
    image: c.Image,
    state: c.State,
    status: c.Status,
    health: health === 'health: starting' ? 'starting' : health,
    ports: (c.Ports ?? []).map((p) => ({
      host_ip: p.IP ?? null,
      host_port: p.PublicPort ?? null,
      container_port: p.PrivatePort,
      protocol: p.Type,
    })),
    labels,
    project: labels[COMPOSE_PROJECT_LABEL] ?? null,
    service: labels[COMPOSE_SERVICE_LABEL] ?? null,
    workingDir: labels[COMPOSE_WORKDIR_LABEL] ?? null,
    created: c.Created,
    networks: Object.fromEntries(Object.entries(c.NetworkSettings?.Networks ?? {}).map(([n, v]) => [n, v.IPAddress || null])),
  };
}

function summariseNetwork(n: Docker.NetworkInspectInfo): NetworkSummary {
  return {
    id: n.Id,
    name: n.Name,
    driver: n.Driver,
    subnets: (n.IPAM?.Config ?? [])
      .filter((c) => typeof c.Subnet === 'string' && c.Subnet.includes('.'))
      .map((c) => ({ subnet: c.Subnet as string, gateway: c.Gateway ?? null, range: c.IPRange ?? null })),
    parent: n.Options?.parent ?? null,
    labels: n.Labels ?? {},
  };
}

/** The Docker Engine API over one endpoint (a unix socket or a tcp host). */
export function createDockerEngine(endpoint: EngineEndpoint, opts: { readTimeoutMs?: number } = {}): Engine {
  const api = createEngineApi(endpoint, { readTimeoutMs: opts.readTimeoutMs ?? ENGINE_READ_TIMEOUT_MS });
  return {
    async ping() {
      const v = await call(() => api.read<Docker.DockerVersion>('/version'));
      return { version: v.Version, apiVersion: v.ApiVersion };
    },
    async listContainers(o = {}) {
      const label = o.project ? [`${COMPOSE_PROJECT_LABEL}=${o.project}`] : o.composeOnly ? [COMPOSE_PROJECT_LABEL] : null;
      const filters = label || o.ids ? { ...(label ? { label } : {}), ...(o.ids ? { id: o.ids } : {}) } : undefined;
      const list = await call(() => api.read<Docker.ContainerInfo[]>('/containers/json', { all: true, filters }));
      return list.map(summarise);
    },
    inspectContainer: (id) => call(() => api.read<Record<string, unknown>>(`/containers/${seg(id)}/json`), id),
    async inspectImage(ref) {
      const info = await orMissing(() => api.read<Docker.ImageInspectInfo>(`/images/${imagePath(ref)}/json`), null, ref);
      return info && { id: info.Id, repoDigests: info.RepoDigests ?? [] };
    },
    async listImageTags(repository) {
      // The engine matches the name (any tag) but returns whole images, whose RepoTags may name other repositories.
      const images = await call(() => api.read<Docker.ImageInfo[]>('/images/json', { filters: { reference: [repository] } }));
      const tags = new Set<string>();
      for (const tag of images.flatMap((i) => i.RepoTags ?? [])) {
        const colon = tag.lastIndexOf(':');
        if (colon > tag.lastIndexOf('/') && tag.slice(0, colon) === repository) tags.add(tag.slice(colon + 1));
      }
      return [...tags];
    },
    startContainer: (id) => change(() => api.change('POST', `/containers/${seg(id)}/start`), id),
    stopContainer: (id) => change(() => api.change('POST', `/containers/${seg(id)}/stop`, { query: { t: 10 } }), id),
    restartContainer: (id) => change(() => api.change('POST', `/containers/${seg(id)}/restart`, { query: { t: 10 } }), id),
    removeContainer: (id) => call(async () => void (await api.change('DELETE', `/containers/${seg(id)}`, { query: { force: true, v: false } })), id),
    containerLogs: (id, o) => containerLogs(api, id, o),
    exec: (id, o) => execIn(api, id, o),
    execStream: (id, o) => execStreamIn(api, id, o),
    async listVolumes(o) {
      const answer = await call(() =>
        api.read<{ Volumes: { Name: string }[] | null }>('/volumes', { filters: { label: [`${COMPOSE_PROJECT_LABEL}=${o.project}`] } }),
      );
      return (answer.Volumes ?? []).map((v) => v.Name);
    },
    removeVolume: (name) => orMissing(() => api.change<void>('DELETE', `/volumes/${seg(name)}`), undefined, name),
    async listNetworks() {
      return (await call(() => api.read<Docker.NetworkInspectInfo[]>('/networks'))).map(summariseNetwork);
    },
    createNetwork: (spec) => createNetwork(api, spec),
    removeNetwork: (name) => removeNetwork(api, name),
    containerEvents: (o) => call(() => dockerContainerEvents(api, o)),
    createContainer: (spec) => createContainer(api, spec),
    runContainer: (spec, o) => runContainer(api, spec, o),
    pullImage: (ref, o) => pullImage(api, ref, o),
  };
}

/** Demultiplexed log text; followed, a stream that ends when the engine ends it or goes away. */
async function containerLogs(api: EngineApi, id: string, opts: LogOptions): Promise<NodeJS.ReadableStream> {
  const info = await call(() => api.read<{ Config: { Tty: boolean } }>(`/containers/${seg(id)}/json`), id);
  const path = `/containers/${seg(id)}/logs`;
  const query = { stdout: true, stderr: true, timestamps: opts.timestamps ?? false, tail: opts.tail ?? 200, ...(opts.since ? { since: opts.since } : {}) };
  if (!opts.follow) {
    const buf = await call(() => api.bytes(path, query), id);
    return new PassThrough().end(info.Config.Tty ? buf : demuxBuffer(buf));
  }
  const stream = await call(() => api.stream('GET', path, { query: { ...query, follow: true } }), id);
  // Piped, the engine's stream is paused while the reader is behind.
  const out = info.Config.Tty ? new PassThrough() : createDemuxer();
  stream.pipe(out, { end: false });
  // An engine that goes away without ending the response (killed, crashed, its connection dropped) gives no
  // 'end', only 'close' (or 'error'): the follower's stream must end then too, not wait forever.
  const finish = () => {
    if (!out.writableEnded) out.end();
  };
  stream.on('end', finish);
  stream.on('close', finish);
  stream.on('error', finish);
  out.on('close', () => stream.destroy());
  return out;
}

async function createNetwork(api: EngineApi, spec: NetworkSpec): Promise<void> {
  const ipam = spec.subnet ? [{ Subnet: spec.subnet, ...(spec.gateway ? { Gateway: spec.gateway } : {}), ...(spec.range ? { IPRange: spec.range } : {}) }] : [];
  try {
    await api.change('POST', '/networks/create', {
      body: {
        Name: spec.name,
        Driver: spec.driver,
        CheckDuplicate: true,
        Labels: spec.labels,
        IPAM: { Driver: 'default', Config: ipam },
        ...(spec.parent ? { Options: { parent: spec.parent } } : {}),
      },
    });
  } catch (err) {
    const status = statusOf(err);
    if (status === 409) throw new AppError('name_taken', `the engine already has a network '${spec.name}'`, { params: { name: spec.name } });
    if (status === 400 || status === 403 || status === 404 || status === 500) {
      throw new AppError('network_invalid', `the engine refused network '${spec.name}': ${errorMessage(err)}`, {
        params: { name: spec.name, code: 'engine_refused' },
        cause: err,
      });
    }
    throw translate(err, spec.name);
  }
}

async function removeNetwork(api: EngineApi, name: string): Promise<void> {
  try {
    await api.change('DELETE', `/networks/${seg(name)}`);
  } catch (err) {
    const status = statusOf(err);
    if (status === 404) return;
    if (status === 403 || status === 409) {
      throw new AppError('network_in_use', `network '${name}' still has containers: ${errorMessage(err)}`, { params: { name, stacks: '' }, cause: err });
    }
    throw translate(err, name);
  }
}

import { PassThrough } from 'node:stream';
import Docker from 'dockerode';
import type { EngineEndpoint } from '../config/config.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, COMPOSE_WORKDIR_LABEL, type ContainerSummary, type Engine, type LogOptions } from './engine.ts';

interface DockerErr {
  statusCode?: number;
  code?: string;
}

/** Maps engine failures to AppError: unknown containers are 404, an unreachable engine 502. */
function translate(err: unknown, id?: string): AppError {
  const e = err as DockerErr;
  if (e.statusCode === 404) return new AppError('not_found', `container '${id ?? ''}' does not exist`, { params: { what: 'container', name: id ?? '' } });
  if (e.statusCode === 409) return new AppError('conflict', errorMessage(err), { cause: err });
  if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'EACCES' || e.statusCode === undefined) {
    return new AppError('engine_unreachable', `container engine not reachable: ${errorMessage(err)}`, { cause: err });
  }
  return new AppError('engine_unreachable', `container engine refused: ${errorMessage(err)}`, { cause: err });
}

async function call<T>(fn: () => Promise<T>, id?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translate(err, id);
  }
}

/** Start, stop and restart: the engine answers 304 when the container is already so, which is success. */
async function change(fn: () => Promise<unknown>, id: string): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if ((err as DockerErr).statusCode === 304) return;
    throw translate(err, id);
  }
}

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
  };
}

/** The Docker Engine API over one endpoint (a unix socket or a tcp host). */
export function createDockerEngine(endpoint: EngineEndpoint): Engine & { docker: Docker } {
  const docker = new Docker(endpoint);
  return {
    docker,
    async ping() {
      const v = await call(() => docker.version());
      return { version: v.Version, apiVersion: v.ApiVersion };
    },
    async listContainers(opts = {}) {
      const filters = opts.project
        ? { label: [`${COMPOSE_PROJECT_LABEL}=${opts.project}`] }
        : opts.composeOnly
          ? { label: [COMPOSE_PROJECT_LABEL] }
          : undefined;
      const list = await call(() => docker.listContainers({ all: true, ...(filters ? { filters } : {}) }));
      return list.map(summarise);
    },
    inspectContainer: (id) => call(async () => (await docker.getContainer(id).inspect()) as unknown as Record<string, unknown>, id),
    async inspectImage(ref) {
      try {
        const info = await docker.getImage(ref).inspect();
        return { id: info.Id, repoDigests: info.RepoDigests ?? [] };
      } catch (err) {
        if ((err as DockerErr).statusCode === 404) return null;
        throw translate(err, ref);
      }
    },
    startContainer: (id) => change(() => docker.getContainer(id).start(), id),
    stopContainer: (id) => change(() => docker.getContainer(id).stop({ t: 10 }), id),
    restartContainer: (id) => change(() => docker.getContainer(id).restart({ t: 10 }), id),
    removeContainer: (id) => call(async () => void (await docker.getContainer(id).remove({ force: true, v: false })), id),
    async containerLogs(id: string, opts: LogOptions) {
      const container = docker.getContainer(id);
      const info = await call(() => container.inspect(), id);
      const base = { stdout: true, stderr: true, timestamps: opts.timestamps ?? false, tail: opts.tail ?? 200, ...(opts.since ? { since: opts.since } : {}) };
      const out = new PassThrough();
      if (opts.follow) {
        const stream = await call(() => container.logs({ ...base, follow: true }), id);
        if (info.Config.Tty) stream.pipe(out);
        else docker.modem.demuxStream(stream, out, out);
        stream.on('end', () => out.end());
        out.on('close', () => (stream as unknown as { destroy?: () => void }).destroy?.());
        return out;
      }
      const buf = await call(() => container.logs({ ...base, follow: false }), id);
      out.end(info.Config.Tty ? buf : demuxBuffer(buf));
      return out;
    },
  };
}

/** Strips the 8-byte stream headers the engine puts before each chunk of a non-tty log. */
export function demuxBuffer(buf: Buffer): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts);
}

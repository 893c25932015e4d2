import { PassThrough } from 'node:stream';
import { errorMessage } from '../core/errors.ts';
import type { DockerodeLoader } from '../engine/docker-engine.ts';
import { type HostListeners, parseProbeOutput } from './ports.ts';

/** Why the host could not be read; the port check turns it into its note. */
export type ProbeFailure = 'image_missing' | 'engine_unreachable' | 'timeout' | 'failed';
export type ProbeFailed = { ok: false; reason: ProbeFailure; message: string; image?: string };
export type ProbeResult = { ok: true; listeners: HostListeners } | ProbeFailed;
/** The host's routing table, neighbour (ARP) table and local addresses, as text, for networks/host-net.ts. */
export type NetTablesResult = { ok: true; tables: NetTables } | ProbeFailed;
export interface NetTables {
  route: string;
  arp: string;
  fibTrie: string;
}

/** Reads the listening sockets and the network tables of the engine's host. Never throws: a failure is a result. */
export interface HostProbe {
  listeners(): Promise<ProbeResult>;
  netTables(): Promise<NetTablesResult>;
}

export interface HostProbeOptions {
  /** dockerode, loaded at the first probe (a user's port check or network view), not at start. */
  docker: DockerodeLoader;
  /** A small image with busybox `tail`; not pulled here (see `onImageMissing`). */
  image: string;
  /** Told when the engine lacks the image, so it can be pulled for the next probe (probe-image.ts). */
  onImageMissing?: () => void;
  timeoutMs?: number;
  labels?: Record<string, string>;
}

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6', '/proc/net/udp', '/proc/net/udp6'];
const NET_TABLES = ['/proc/net/route', '/proc/net/arp', '/proc/net/fib_trie'];
const MAX_OUTPUT = 8 << 20;

function classify(err: unknown, image: string): ProbeFailed {
  const e = err as { statusCode?: number; code?: string };
  const message = errorMessage(err);
  if (e.statusCode === 404 && /image/i.test(message))
    return { ok: false, reason: 'image_missing', message: `probe image '${image}' is not present on the engine`, image };
  if (e.statusCode === undefined && (e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'EACCES')) {
    return { ok: false, reason: 'engine_unreachable', message: `container engine not reachable: ${message}` };
  }
  return { ok: false, reason: 'failed', message };
}

class ProbeTimeout extends Error {}

/**
 * The host's socket tables, read by a short-lived container in the host network namespace
 * (`tail -n +1` prints each file after a `==> name <==` header). Unprivileged, read-only,
 * removed by the engine when it exits, killed after the timeout.
 */
export function createHostProbe(opts: HostProbeOptions): HostProbe {
  const { image } = opts;
  const timeoutMs = opts.timeoutMs ?? 5000;
  async function run(files: string[]): Promise<string> {
    const docker = await opts.docker();
    const container = await docker.createContainer({
      Image: image,
      Cmd: ['tail', '-n', '+1', ...files],
      User: '65534:65534',
      Labels: { 'kade.probe': 'host-ports', ...opts.labels },
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      HostConfig: {
        NetworkMode: 'host',
        AutoRemove: true,
        Init: true,
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Memory: 32 << 20,
      },
    });
    const chunks: Buffer[] = [];
    let size = 0;
    const stdout = new PassThrough();
    stdout.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= MAX_OUTPUT) chunks.push(b);
    });
    // A missing tcp6/udp6 table (IPv6 off) is reported on stderr; the tables that exist still count.
    const stderr = new PassThrough().resume();
    let timer: NodeJS.Timeout | undefined;
    try {
      const stream = await container.attach({ stream: true, stdout: true, stderr: true });
      const ended = new Promise<void>((resolve, reject) => {
        stream.on('end', resolve);
        stream.on('close', resolve);
        stream.on('error', reject);
      });
      docker.modem.demuxStream(stream, stdout, stderr);
      await container.start();
      await Promise.race([
        ended,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new ProbeTimeout(`the probe did not finish within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch (err) {
      // AutoRemove only acts on a container that ran to its end; one that never started or hangs is ours to remove.
      await container.remove({ force: true }).catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
    }
    return Buffer.concat(chunks).toString('utf8');
  }
  async function attempt<T>(read: () => Promise<T>): Promise<T | ProbeFailed> {
    try {
      return await read();
    } catch (err) {
      if (err instanceof ProbeTimeout) return { ok: false, reason: 'timeout', message: err.message };
      const failed = classify(err, image);
      if (failed.reason === 'image_missing') opts.onImageMissing?.();
      return failed;
    }
  }
  return {
    listeners: () => attempt(async () => ({ ok: true as const, listeners: parseProbeOutput(await run(TABLES)) })),
    netTables: () =>
      attempt(async () => {
        const sections = splitTail(await run(NET_TABLES));
        return {
          ok: true as const,
          tables: { route: sections['/proc/net/route'] ?? '', arp: sections['/proc/net/arp'] ?? '', fibTrie: sections['/proc/net/fib_trie'] ?? '' },
        };
      }),
  };
}

/** `tail -n +1 a b` output split by its `==> name <==` headers. */
function splitTail(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let current: string | null = null;
  for (const line of text.split('\n')) {
    const head = /^==> (.+) <==$/.exec(line);
    if (head?.[1]) {
      current = head[1];
      out[current] = '';
    } else if (current) out[current] += `${line}\n`;
  }
  return out;
}

/**
 * One probe result shared for `ttlMs`: typing a port into a form does not start a container per
 * keystroke, and callers that arrive while a probe runs wait for that same probe.
 */
export function cachedProbe(probe: HostProbe, opts: { ttlMs?: number; now?: () => number; onFailure?: (r: ProbeFailed) => void } = {}): HostProbe {
  const ttlMs = opts.ttlMs ?? 5000;
  const now = opts.now ?? Date.now;
  let current: { at: number; result: Promise<ProbeResult> } | undefined;
  let tables: { at: number; result: Promise<NetTablesResult> } | undefined;
  return {
    netTables() {
      // The ARP table changes as devices come and go: a short cache only spares a container per keystroke.
      if (tables && now() - tables.at < ttlMs) return tables.result;
      const entry = { at: Number.POSITIVE_INFINITY, result: probe.netTables() };
      tables = entry;
      void entry.result.then((r) => {
        entry.at = now();
        if (!r.ok) opts.onFailure?.(r);
      });
      return entry.result;
    },
    listeners() {
      // `at` is set when the probe ends, so a slow probe is not stale the moment it answers.
      if (current && now() - current.at < ttlMs) return current.result;
      const entry = { at: Number.POSITIVE_INFINITY, result: probe.listeners() };
      current = entry;
      void entry.result.then((r) => {
        entry.at = now();
        if (!r.ok) opts.onFailure?.(r);
      });
      return entry.result;
    },
  };
}

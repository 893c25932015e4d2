import { AppError, errorMessage } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';
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
  engine: Pick<Engine, 'runContainer'>;
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

function classify(err: unknown, image: string, timeoutMs: number): ProbeFailed {
  if (!(err instanceof AppError)) return { ok: false, reason: 'failed', message: errorMessage(err) };
  if (err.code === 'not_found' && err.params.what === 'image')
    return { ok: false, reason: 'image_missing', message: `probe image '${image}' is not present on the engine`, image };
  if (err.params.reason === 'timeout') return { ok: false, reason: 'timeout', message: `the probe did not finish within ${timeoutMs} ms` };
  const cause = err.cause as { statusCode?: number; code?: string } | undefined;
  if (err.code === 'engine_unreachable' && cause?.statusCode === undefined && ['ENOENT', 'ECONNREFUSED', 'EACCES'].includes(cause?.code ?? '')) {
    return { ok: false, reason: 'engine_unreachable', message: err.message };
  }
  return { ok: false, reason: 'failed', message: err.message };
}

/**
 * The host's socket tables, read by a short-lived container in the host network namespace
 * (`tail -n +1` prints each file after a `==> name <==` header). Unprivileged, read-only,
 * removed by the engine when it exits, killed after the timeout.
 */
export function createHostProbe(opts: HostProbeOptions): HostProbe {
  const { image } = opts;
  const timeoutMs = opts.timeoutMs ?? 5000;
  async function run(files: string[]): Promise<string> {
    // A missing tcp6/udp6 table (IPv6 off) is reported on stderr; the tables that exist still count.
    const done = await opts.engine.runContainer(
      {
        image,
        cmd: ['tail', '-n', '+1', ...files],
        user: '65534:65534',
        labels: { 'kade.probe': 'host-ports', ...opts.labels },
        network: 'host',
        autoRemove: true,
        readOnlyRoot: true,
        powers: 'none',
        memoryBytes: 32 << 20,
      },
      { timeoutMs, outputLimit: MAX_OUTPUT },
    );
    return done.stdout;
  }
  async function attempt<T>(read: () => Promise<T>): Promise<T | ProbeFailed> {
    try {
      return await read();
    } catch (err) {
      const failed = classify(err, image, timeoutMs);
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
 * keystroke, and callers that arrive while a probe runs wait for that same probe. The ARP table changes
 * as devices come and go: the short cache only spares a container per keystroke there too.
 */
export function cachedProbe(probe: HostProbe, opts: { ttlMs?: number; now?: () => number; onFailure?: (r: ProbeFailed) => void } = {}): HostProbe {
  const cached = <T extends { ok: true } | ProbeFailed>(read: () => Promise<T>): (() => Promise<T>) => {
    const ttlMs = opts.ttlMs ?? 5000;
    const now = opts.now ?? Date.now;
    let current: { at: number; result: Promise<T> } | undefined;
    return () => {
      // `at` is set when the probe ends, so a slow probe is not stale the moment it answers.
      if (current && now() - current.at < ttlMs) return current.result;
      const entry = { at: Number.POSITIVE_INFINITY, result: read() };
      current = entry;
      void entry.result.then((r) => {
        entry.at = now();
        if (!r.ok) opts.onFailure?.(r);
      });
      return entry.result;
    };
  };
  return { netTables: cached(() => probe.netTables()), listeners: cached(() => probe.listeners()) };
}

// Parts of the load suite and bench/load.ts: chatty containers from the local busybox image, log
// followers, a closed-loop API load and a reader that stalls. Everything is labelled kade.test.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

const run = promisify(execFile);
const docker = async (...args: string[]) => (await run('docker', args, { timeout: 60_000 })).stdout.trim();

export const IMAGE = 'kade-test/busybox:1';
const LOG_CAP = ['--log-opt', 'max-size=5m', '--log-opt', 'max-file=2'];
/** About 200 lines of 210 bytes a second: chatty, yet 50 followers of it fit on a small CI machine. */
export const CHATTY = 'L=$(printf %0200d 0); i=0; while true; do j=0; while [ $j -lt 20 ]; do echo "line $i $L"; i=$((i+1)); j=$((j+1)); done; sleep 0.1; done';
/** Lines of a kilobyte as fast as the engine takes them: a reader that stops falls megabytes behind in a second. */
export const FLOOD = 'L=$(printf %01000d 0); i=0; while true; do echo "$i $L"; i=$((i+1)); done';

/** Runs a labelled container printing `script`, with its log files capped so a flood cannot fill the disk. */
export async function runTalker(name: string, script: string, extra: string[] = []): Promise<void> {
  await docker('run', '-d', '--init', '--name', name, '--label', 'kade.test=1', '--network', 'none', ...LOG_CAP, ...extra, IMAGE, 'sh', '-c', script);
}

/** Writes an app folder with two chatty services (`web`, `worker`) under the library; start it through the API. */
export function writeChattyApp(baseDir: string, name: string): void {
  const dir = join(baseDir, 'stacks', name);
  mkdirSync(dir, { recursive: true });
  const command = JSON.stringify(['sh', '-c', CHATTY]).replaceAll('$', '$$$$');
  const service = (s: string) =>
    [`  ${s}:`, `    image: ${IMAGE}`, '    init: true', '    network_mode: none', `    command: ${command}`, '    labels:', '      kade.test: "1"'].join('\n');
  writeFileSync(join(dir, 'docker-compose.yml'), `services:\n${service('web')}\n${service('worker')}\n`);
}

export interface Follower {
  /** `line` events received so far. */
  lines(): number;
  /** Resolves at the first line. */
  first: Promise<void>;
  /** Resolves when the stream ends or fails, with the reason. */
  done: Promise<string>;
  /** Goes away like a closed browser tab. */
  close(): void;
}

/** Follows an event stream and counts its `line` events, reading as fast as they come. */
export function follow(url: string, cookie: string): Follower {
  const ac = new AbortController();
  let count = 0;
  let rest = '';
  let gotFirst: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    gotFirst = resolve;
  });
  const done = (async () => {
    const res = await fetch(url, { headers: { cookie }, signal: ac.signal });
    if (res.status !== 200 || !res.body) return `status ${res.status}`;
    const dec = new TextDecoder();
    for await (const chunk of res.body) {
      const text = rest + dec.decode(chunk as Uint8Array, { stream: true });
      const blocks = text.split('\n\n');
      rest = blocks.pop() ?? '';
      for (const b of blocks) if (b.startsWith('event: line\n')) count += 1;
      if (count > 0) gotFirst();
    }
    return 'ended';
  })().catch((err: unknown) => (ac.signal.aborted ? 'closed' : `failed: ${String(err)}`));
  return { lines: () => count, first, done, close: () => ac.abort() };
}

export interface LoadResult {
  requests: number;
  /** Answers by status. */
  statuses: Map<number, number>;
  /** Requests that got no answer (connection refused, reset, ...). */
  errors: string[];
  /** Milliseconds per request, in the order they ended. */
  latencies: number[];
}

/**
 * `clients` concurrent closed-loop clients, each doing `rounds` rounds of one GET of every path, and
 * stopping early at `deadlineMs`: bounded in count and in time.
 */
export async function apiLoad(opts: {
  base: string;
  cookies: string[];
  paths: string[];
  clients: number;
  rounds: number;
  deadlineMs: number;
}): Promise<LoadResult> {
  const result: LoadResult = { requests: 0, statuses: new Map(), errors: [], latencies: [] };
  const stopAt = performance.now() + opts.deadlineMs;
  const client = async (n: number) => {
    const cookie = opts.cookies[n % opts.cookies.length] ?? '';
    for (let round = 0; round < opts.rounds && performance.now() < stopAt; round++) {
      for (const path of opts.paths) {
        const started = performance.now();
        result.requests += 1;
        try {
          const res = await fetch(opts.base + path, { headers: { cookie } });
          await res.arrayBuffer();
          result.statuses.set(res.status, (result.statuses.get(res.status) ?? 0) + 1);
          result.latencies.push(performance.now() - started);
        } catch (err) {
          result.errors.push(`${path}: ${String((err as Error).cause ?? err)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, (_, n) => client(n)));
  return result;
}

/** The value at quantile `q` (0..1) of some numbers. */
export function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export interface StalledReader {
  socket: Socket;
  /** Starts reading again; resolves with the bytes received once the server has closed the connection. */
  drain(): Promise<number>;
}

/**
 * Sends a GET and then reads nothing: past the socket's own small buffer the data waits in the kernel
 * and then at the server, as with a client whose machine froze.
 */
export async function stalledReader(base: string, path: string, cookie: string): Promise<StalledReader> {
  const { hostname, port } = new URL(base);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nCookie: ${cookie}\r\nAccept: text/event-stream\r\n\r\n`);
  return {
    socket,
    drain: () =>
      new Promise<number>((resolve) => {
        let bytes = 0;
        socket.on('data', (d: Buffer) => {
          bytes += d.length;
        });
        socket.once('close', () => resolve(bytes));
      }),
  };
}

/** Waits until `check` holds, polling; throws with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean, timeoutMs: number, onPoll: () => void = () => undefined): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    onPoll();
    if (check()) return;
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

import { rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface SocketProxy {
  /** The proxy's own unix socket. */
  path: string;
  /** `unix://<path>`: what DOCKER_HOST is set to so Kade (and compose) talk to the engine through the proxy. */
  dockerHost: string;
  /** Request lines (`POST /v1.41/containers/create?...`) seen so far, in order. */
  requests: string[];
  /** The engine goes away: every open connection is destroyed and the socket removed, so new ones are refused. */
  cut(): Promise<void>;
  /** The engine hangs: open connections are destroyed, new ones are accepted and never answered. */
  stall(): void;
  /**
   * Cuts as soon as a request line matching `pattern` arrives, before that request reaches the engine;
   * resolves with that line then, and rejects when no such request came within `timeoutMs`.
   */
  cutOn(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The engine is back: the socket listens again and passes requests on (nothing happens when it was neither cut nor stalled). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

const REQUEST_LINE = /^(?:GET|HEAD|POST|PUT|DELETE|PATCH) \S+ HTTP\/1\.[01]$/gm;

/**
 * A unix-socket proxy in front of the engine's socket, for the fault tests: everything passes through
 * unchanged until the test cuts it, which looks to its clients like a stopped engine (open connections
 * reset, new ones refused because the socket file is gone).
 */
export async function startSocketProxy(path: string, target = '/var/run/docker.sock'): Promise<SocketProxy> {
  const open = new Set<Socket>();
  const requests: string[] = [];
  let trigger: { pattern: RegExp; fire: (line: string) => void } | null = null;
  let server: Server | null = null;
  let mode: 'pass' | 'down' | 'stall' = 'pass';

  function destroyAll(): void {
    for (const s of open) s.destroy();
    open.clear();
  }

  function onClient(client: Socket): void {
    if (mode === 'down') {
      client.destroy();
      return;
    }
    if (mode === 'stall') {
      // Read and dropped: the client waits for an answer that never comes.
      open.add(client);
      client.on('error', () => client.destroy()).resume();
      return;
    }
    const upstream = createConnection(target);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    upstream.pipe(client);
    client.on('data', (chunk: Buffer) => {
      const lines = chunk.toString('latin1').replace(/\r/g, '').match(REQUEST_LINE) ?? [];
      requests.push(...lines);
      const hit = trigger ? lines.find((l) => trigger?.pattern.test(l)) : undefined;
      if (hit !== undefined && trigger) {
        const fire = trigger.fire;
        trigger = null;
        void cut().then(() => fire(hit));
        return;
      }
      if (!upstream.destroyed) upstream.write(chunk);
    });
  }

  async function listen(): Promise<void> {
    if (mode === 'stall') destroyAll();
    mode = 'pass';
    if (server) return;
    rmSync(path, { force: true });
    const s = createServer(onClient);
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(path, () => resolve());
    });
    server = s;
  }

  async function cut(): Promise<void> {
    mode = 'down';
    const s = server;
    server = null;
    const closed = s ? new Promise<void>((resolve) => s.close(() => resolve())) : Promise.resolve();
    destroyAll();
    await closed;
    rmSync(path, { force: true });
  }

  await listen();
  return {
    path,
    dockerHost: `unix://${path}`,
    requests,
    cut,
    stall() {
      mode = 'stall';
      destroyAll();
    },
    cutOn: (pattern, timeoutMs = 60_000) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          trigger = null;
          reject(new Error(`no request matching ${pattern} reached the proxy within ${timeoutMs} ms`));
        }, timeoutMs);
        trigger = {
          pattern,
          fire: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
      }),
    restore: listen,
    async close() {
      trigger = null;
      await cut();
    },
  };
}

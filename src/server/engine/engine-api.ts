import { Agent, type ClientRequest, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { EngineEndpoint } from '../config/config.ts';

/**
 * A small Docker Engine API client on node:http: every call Kade makes (listings, inspects, events, logs, exec,
 * containers it runs, image pulls) needs no more. dockerode would cost ~127 ms and ~21 MiB at load (ssh2, grpc).
 */

/** Query values; objects (`filters`) are sent JSON-encoded, as the engine wants them. */
export type Query = Record<string, string | number | boolean | undefined | Record<string, string[]>>;

/**
 * A failed call: `statusCode` and the engine's own `message` when it answered, node's `code` (ENOENT,
 * ECONNREFUSED, EACCES, …) when it could not be reached, `timeoutMs` when it did not answer in time.
 * docker-engine.ts turns it into an AppError.
 */
export interface EngineFault extends Error {
  statusCode?: number;
  code?: string;
  timeoutMs?: number;
}

export interface EngineApi {
  /** GET with a JSON answer, bounded by the read time-out. */
  read<T>(path: string, query?: Query): Promise<T>;
  /** POST or DELETE (a change): no time-out; the JSON answer, or undefined when there is none. */
  change<T = unknown>(method: 'POST' | 'DELETE', path: string, opts?: { query?: Query; body?: unknown }): Promise<T>;
  /** The whole body of a GET as bytes (non-followed logs). No time-out, like a change. */
  bytes(path: string, query?: Query): Promise<Buffer>;
  /**
   * The response of a 2xx answer as a stream (events, followed logs, exec output), on a connection of its own:
   * a stream held open for hours must not take a place in the bounded pool.
   */
  stream(method: 'GET' | 'POST', path: string, opts?: { query?: Query; body?: unknown; headers?: Record<string, string> }): Promise<IncomingMessage>;
  /** POST that the engine answers with 101 and a raw two-way connection (exec start with stdin). */
  upgrade(path: string, body: unknown): Promise<Duplex>;
}

/** Sockets kept open to the engine for short calls; more callers wait for one instead of opening more. */
const MAX_SOCKETS = 16;

export function fault(message: string, props: { statusCode?: number; code?: string; timeoutMs?: number; name?: string; cause?: unknown } = {}): EngineFault {
  const { cause, ...rest } = props;
  return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), rest);
}

/** `/containers/json?all=1&filters=%7B…%7D` */
export function withQuery(path: string, query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    params.set(k, typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const q = params.toString();
  return q ? `${path}?${q}` : path;
}

/** The engine's `{"message": "…"}`, else the body's text, else the status line. */
function engineMessage(status: number, body: Buffer): string {
  const text = body.toString('utf8').trim();
  try {
    const m = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof m === 'string' && m) return m;
  } catch {
    // Not JSON (a proxy's page, an empty 304): the text itself says more than nothing.
  }
  return text || `the engine answered HTTP ${status}`;
}

/** The whole body of a response; a connection dropped before its end rejects. */
export function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (b: Buffer) => parts.push(b));
    res.once('end', () => resolve(Buffer.concat(parts)));
    res.once('error', reject);
    // A connection dropped mid-body gives 'close' without 'end' (and, in some versions, no 'error').
    res.once('close', () => {
      if (!res.complete) reject(fault('the engine closed the connection before the answer ended', { code: 'ECONNRESET' }));
    });
  });
}

/** Rejects with the engine's words for anything but 2xx; 304 included (start/stop treat it as "already so"). */
async function checked(res: IncomingMessage): Promise<IncomingMessage> {
  const status = res.statusCode ?? 0;
  if (status >= 200 && status < 300) return res;
  const body = await readBody(res);
  throw fault(engineMessage(status, body), { statusCode: status });
}

function parseJson<T>(body: Buffer): T {
  if (body.length === 0) return undefined as T;
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch (err) {
    throw fault(`the engine's answer is not JSON: ${body.subarray(0, 200).toString('utf8')}`, { cause: err });
  }
}

interface Send {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** false: a connection of its own, outside the pool. */
  pooled: boolean;
}

/** The API over one endpoint; `readTimeoutMs` bounds `read()`. */
export function createEngineApi(endpoint: EngineEndpoint, opts: { readTimeoutMs: number }): EngineApi {
  const agent = new Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  const target = 'socketPath' in endpoint ? { socketPath: endpoint.socketPath } : { host: endpoint.host, port: endpoint.port };

  function open(s: Send): ClientRequest {
    const payload = s.body === undefined ? undefined : JSON.stringify(s.body);
    const options: RequestOptions = {
      ...target,
      method: s.method,
      path: s.path,
      agent: s.pooled ? agent : false,
      headers: {
        ...(payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) }),
        ...s.headers,
      },
    };
    const req = httpRequest(options);
    req.end(payload);
    return req;
  }

  function respond(req: ClientRequest): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      req.once('response', resolve);
      // Kept for the request's life: a connection error after the answer began is the response's to report.
      req.on('error', reject);
    });
  }

  /** A pooled call whose whole body is read; with `timeoutMs`, it fails once that much time passed without the whole answer. */
  async function whole(s: Omit<Send, 'pooled'>, timeoutMs?: number): Promise<Buffer> {
    const req = open({ ...s, pooled: true });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      if (timeoutMs === undefined) return;
      timer = setTimeout(() => {
        const err = fault(`the container engine did not answer within ${timeoutMs / 1000} s`, { name: 'TimeoutError', timeoutMs });
        // Destroyed, the connection leaves the pool: a hung engine's socket is not handed to the next caller.
        req.destroy(err);
        reject(err);
      }, timeoutMs);
    });
    timedOut.catch(() => {});
    try {
      return await Promise.race([respond(req).then(checked).then(readBody), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async read<T>(path: string, query?: Query) {
      return parseJson<T>(await whole({ method: 'GET', path: withQuery(path, query) }, opts.readTimeoutMs));
    },
    async change<T>(method: 'POST' | 'DELETE', path: string, o: { query?: Query; body?: unknown } = {}) {
      return parseJson<T>(await whole({ method, path: withQuery(path, o.query), body: o.body }));
    },
    bytes: (path, query) => whole({ method: 'GET', path: withQuery(path, query) }),
    async stream(method, path, o = {}) {
      return checked(
        await respond(open({ method, path: withQuery(path, o.query), body: o.body, pooled: false, ...(o.headers ? { headers: o.headers } : {}) })),
      );
    },
    upgrade(path, body) {
      const req = open({ method: 'POST', path, body, pooled: false, headers: { Connection: 'Upgrade', Upgrade: 'tcp' } });
      return new Promise<Duplex>((resolve, reject) => {
        req.once('upgrade', (_res: IncomingMessage, socket: Duplex, head: Buffer) => {
          // Output that came in the same packet as the 101 answer.
          if (head.length > 0) socket.unshift(head);
          resolve(socket);
        });
        // Any answer but 101 is a refusal (404 no such exec, 409 container not running).
        req.once('response', (res: IncomingMessage) => {
          checked(res).then(() => reject(fault(`the engine did not upgrade ${path}`)), reject);
        });
        req.on('error', reject);
      });
    },
  };
}

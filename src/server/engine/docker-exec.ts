import type { Duplex, Readable } from 'node:stream';
import { Transform, Writable } from 'node:stream';
import { AppError, errorMessage } from '../core/errors.ts';
import { call, translate } from './docker-errors.ts';
import { EXEC_OUTPUT_LIMIT, type ExecOptions, type ExecResult, type ExecStream, type ExecStreamOptions } from './engine.ts';
import type { EngineApi } from './engine-api.ts';

interface ContainerState {
  Name: string;
  State: { Running: boolean; Paused: boolean };
}

/** An exec created in a container, with the container's name for messages. */
interface Exec {
  id: string;
  name: string;
}

/** Collects what a stream writes, keeping at most `limit` bytes. */
export function collector(limit = EXEC_OUTPUT_LIMIT): { sink: Writable; text: () => string } {
  const parts: Buffer[] = [];
  let size = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (size < limit) {
        const part = chunk.subarray(0, limit - size);
        parts.push(part);
        size += part.length;
      }
      done();
    },
  });
  return { sink, text: () => Buffer.concat(parts).toString('utf8') };
}

function notRunning(name: string, state: string): AppError {
  return new AppError('conflict', `container '${name}' is ${state}, so nothing can run inside it`, { params: { name, state } });
}

/**
 * Splits the engine's multiplexed output (8-byte frame headers) as it streams: stdout frames are passed on with
 * backpressure, stderr frames go to `onStderr` (or are passed on too, without it: a container log's both streams).
 */
export function createDemuxer(onStderr?: (chunk: Buffer) => void): Transform {
  let header = Buffer.alloc(0);
  let remaining = 0;
  let kind = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, next) {
      let i = 0;
      while (i < chunk.length) {
        if (remaining === 0) {
          const take = Math.min(8 - header.length, chunk.length - i);
          header = Buffer.concat([header, chunk.subarray(i, i + take)]);
          i += take;
          if (header.length < 8) break;
          kind = header[0] ?? 0;
          remaining = header.readUInt32BE(4);
          header = Buffer.alloc(0);
          continue;
        }
        const n = Math.min(remaining, chunk.length - i);
        const part = chunk.subarray(i, i + n);
        if (kind === 1 || (kind === 2 && !onStderr)) this.push(part);
        else if (kind === 2) onStderr?.(part);
        remaining -= n;
        i += n;
      }
      next();
    },
  });
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

/** Creates an exec in a running container; a stopped or paused one is a conflict that names it. */
async function createExec(
  api: EngineApi,
  id: string,
  opts: { cmd: string[]; env?: string[] | undefined; user?: string | undefined; stdin: boolean },
): Promise<Exec> {
  const info = await call(() => api.read<ContainerState>(`/containers/${encodeURIComponent(id)}/json`), id);
  const name = info.Name.replace(/^\//, '') || id;
  if (info.State.Paused) throw notRunning(name, 'paused');
  if (!info.State.Running) throw notRunning(name, 'not running');
  try {
    const created = await api.change<{ Id: string }>('POST', `/containers/${encodeURIComponent(id)}/exec`, {
      body: {
        Cmd: opts.cmd,
        Env: opts.env ?? [],
        ...(opts.user ? { User: opts.user } : {}),
        AttachStdin: opts.stdin,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
      },
    });
    return { id: created.Id, name };
  } catch (err) {
    // Stopped or paused between the inspect and the exec.
    if ((err as { statusCode?: number }).statusCode === 409) throw notRunning(name, 'not running');
    throw translate(err, id);
  }
}

/** The output ends as the process exits; the engine may record the exit code a moment later. */
async function exitCodeOf(api: EngineApi, exec: Exec, id: string): Promise<number> {
  for (let i = 0; ; i++) {
    const state = await call(() => api.read<{ Running: boolean; ExitCode: number | null }>(`/exec/${exec.id}/json`), id);
    if (!state.Running && state.ExitCode !== null) return state.ExitCode;
    if (i >= 50)
      throw new AppError('engine_unreachable', `the engine reports no exit code for a command in container '${exec.name}'`, { params: { name: exec.name } });
    await new Promise((r) => setTimeout(r, 100));
  }
}

const START = { Detach: false, Tty: false };

/**
 * The exec's output: with stdin, the raw connection the engine hands over after a 101 (hijack), whose write side
 * is the command's stdin; without, the plain streamed answer.
 */
function startExec(api: EngineApi, exec: Exec, id: string, hijack: boolean): Promise<Readable> {
  const path = `/exec/${exec.id}/start`;
  return call<Readable>(() => (hijack ? api.upgrade(path, START) : api.stream('POST', path, { body: START })), id);
}

/** Runs a command and collects its output, giving up after `timeoutMs` (default 60 s). */
export async function execIn(api: EngineApi, id: string, opts: ExecOptions): Promise<ExecResult> {
  const withStdin = opts.stdin !== undefined;
  const exec = await createExec(api, id, { ...opts, stdin: withStdin });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const out = collector();
  const err = collector();
  const stream = await startExec(api, exec, id, withStdin);
  const demux = createDemuxer((chunk) => err.sink.write(chunk));
  stream.pipe(demux, { end: false });
  demux.pipe(out.sink);
  await new Promise<void>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      // The API cannot kill an exec; dropping the connection at least closes its stdin and output.
      stream.destroy();
      reject(new AppError('engine_unreachable', `command in container '${exec.name}' did not finish within ${timeoutMs} ms`, { params: { name: exec.name } }));
    }, timeoutMs);
    const finish = (e?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (e) return reject(translate(e, id));
      // Done once the demuxer has passed on the last bytes, not merely once the connection ended.
      out.sink.once('finish', () => resolve());
      demux.end();
    };
    stream.once('end', () => finish());
    stream.once('close', () => finish());
    stream.on('error', finish);
    if (withStdin) (stream as Duplex).end(opts.stdin);
  });
  return { exitCode: await exitCodeOf(api, exec, id), stdout: out.text(), stderr: err.text() };
}

/** Runs a command with its output as a stream read with backpressure (see Engine.execStream). */
export async function execStreamIn(api: EngineApi, id: string, opts: ExecStreamOptions): Promise<ExecStream> {
  const input = opts.stdin;
  const exec = await createExec(api, id, { ...opts, stdin: !!input });
  // The raw connection (hijack) also without stdin: it streams with less buffering than the HTTP response.
  const socket = (await startExec(api, exec, id, true)) as Duplex;
  const err = collector();
  const stdout = createDemuxer((chunk) => err.sink.write(chunk));
  let ended = false;
  const dropped = (cause: unknown) =>
    cause instanceof AppError
      ? cause
      : new AppError('engine_unreachable', `the connection to a command in container '${exec.name}' was dropped: ${errorMessage(cause)}`, {
          params: { name: exec.name },
          cause,
        });
  const done = new Promise<{ exitCode: number; stderr: string }>((resolve, reject) => {
    let settled = false;
    const finish = (cause?: unknown) => {
      if (settled) return;
      settled = true;
      exitCodeOf(api, exec, id).then(
        (exitCode) => {
          // After a dropped connection the output may be incomplete; only a clean end ends stdout.
          if (cause === undefined) stdout.end();
          else stdout.destroy(dropped(cause));
          resolve({ exitCode, stderr: err.text() });
        },
        (e: unknown) => {
          const failure = cause === undefined ? e : dropped(cause);
          stdout.destroy(failure as Error);
          reject(failure);
        },
      );
    };
    socket.once('end', () => {
      ended = true;
      finish();
    });
    // A dropped connection can report more than one error; every one is handled, the first counts.
    socket.on('error', (e: unknown) => finish(e));
    socket.once('close', () => finish(ended ? undefined : new Error('closed before the output ended')));
    input?.on('error', (e: unknown) => socket.destroy(e instanceof Error ? e : new Error(String(e))));
  });
  // Nobody has to await `done`; a rejection nobody handles must not end the process.
  done.catch(() => {});
  socket.pipe(stdout, { end: false });
  stdout.once('close', () => {
    if (!ended) socket.destroy();
  });
  if (input) input.pipe(socket);
  return { stdout, done };
}

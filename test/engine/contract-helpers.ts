import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { AppError } from '../../src/server/core/errors.ts';
import type { ErrorCode } from '../../src/shared/errors.ts';

/** Asserts that `p` rejects with an AppError of `code` and returns it for further checks. */
export async function rejectsWith(p: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  const outcome = await p.then(
    () => ({ ok: true as const }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  assert.ok(!outcome.ok, `expected AppError '${code}', but it succeeded`);
  assert.ok(outcome.err instanceof AppError, `expected AppError '${code}', got ${String(outcome.err)}`);
  assert.equal(outcome.err.code, code, outcome.err.message);
  return outcome.err;
}

/** The whole text of a stream that ends by itself. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

/** Reads a never-ending stream until `marker` shows up; rejects after `ms` with what came so far. */
export function readUntil(stream: NodeJS.ReadableStream, marker: string, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const done = (err?: Error) => {
      clearTimeout(timer);
      stream.off('data', onData);
      if (err) reject(err);
      else resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (text.includes(marker)) done();
    };
    const timer = setTimeout(() => done(new Error(`no '${marker}' within ${ms} ms; got ${JSON.stringify(text)}`)), ms);
    stream.on('data', onData);
    stream.once('error', (err: Error) => done(err));
  });
}

/** A 127.0.0.1 port that was free a moment ago; nothing listens on it once this returns. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/**
 * Waits for `p` at most `ms`, failing naming `what`. Its timer also keeps the process alive while it waits: an engine's
 * event stream does not (a watch in the background never holds a process), so a case awaiting an event needs it.
 */
export async function within<T>(what: string, p: Promise<T>, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${ms} ms: ${what}`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Asks `probe` until `ok` holds of its answer; fails after `ms` naming `what` and the last answer. */
export async function until<T>(what: string, probe: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) assert.fail(`never happened within ${ms} ms: ${what} (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The `each` of a contract's case file: every case gets its own `target()` (a fake makes a new one each time) and
 * `scope` (what the case makes), whose cleanup runs after it, also when it fails.
 */
export function contractCase<T, S extends { cleanup(): Promise<void> }>(name: string, target: () => Promise<T> | T, scope: (t: T) => S, timeout: number) {
  return (title: string, body: (t: T, s: S) => Promise<void>): void => {
    void test(`${name}: ${title}`, { timeout }, async () => {
      const t = await target();
      const s = scope(t);
      try {
        await body(t, s);
      } finally {
        await s.cleanup();
      }
    });
  };
}

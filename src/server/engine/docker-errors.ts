import { AppError, errorMessage } from '../core/errors.ts';
import type { EngineFault } from './engine-api.ts';

const statusOf = (err: unknown): number | undefined => (err as EngineFault | null)?.statusCode;

/** Maps engine failures to AppError: unknown containers are 404, an unreachable or hung engine 502. */
export function translate(err: unknown, id?: string): AppError {
  if (err instanceof AppError) return err;
  const e = (err ?? {}) as EngineFault;
  if (e.name === 'AbortError' || e.name === 'TimeoutError') {
    return new AppError('engine_unreachable', errorMessage(err), { cause: err });
  }
  if (e.statusCode === 404) return new AppError('not_found', `container '${id ?? ''}' does not exist`, { params: { what: 'container', name: id ?? '' } });
  if (e.statusCode === 409) return new AppError('conflict', errorMessage(err), { cause: err });
  if (e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'EACCES' || e.statusCode === undefined) {
    return new AppError('engine_unreachable', `container engine not reachable: ${errorMessage(err)}`, { cause: err });
  }
  return new AppError('engine_unreachable', `container engine refused: ${errorMessage(err)}`, { cause: err });
}

export async function call<T>(fn: () => Promise<T>, id?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw translate(err, id);
  }
}

/** Start, stop and restart: the engine answers 304 when the container is already so, which is success. */
export async function change(fn: () => Promise<unknown>, id: string): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (statusOf(err) === 304) return;
    throw translate(err, id);
  }
}

/** Like `call`, but the engine's 404 is an answer (`onMissing`), not a failure. */
export async function orMissing<T>(fn: () => Promise<T>, onMissing: T, id: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (statusOf(err) === 404) return onMissing;
    throw translate(err, id);
  }
}

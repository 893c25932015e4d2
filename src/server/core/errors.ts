import type { ErrorCode, ErrorParams } from '../../shared/errors.ts';

/** The one error type of the server: a stable code, an English message, safe params. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly params: ErrorParams;
  readonly fields: string[];

  constructor(code: ErrorCode, message: string, opts: { params?: ErrorParams; fields?: string[]; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.params = opts.params ?? {};
    this.fields = opts.fields ?? [];
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

export function notFound(what: string, name: string): AppError {
  return new AppError('not_found', `${what} '${name}' does not exist`, { params: { what, name } });
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

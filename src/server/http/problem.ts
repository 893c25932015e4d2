import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ErrorCode, Problem } from '../../shared/errors.ts';
import { AppError } from '../core/errors.ts';
import type { AppEnv } from './context.ts';

/** The one table from error code to HTTP status. */
export const STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  validation: 400,
  invalid_json: 400,
  invalid_name: 400,
  required_fields: 400,
  invalid_git_url: 400,
  template_invalid: 400,
  compose_invalid: 400,
  path_unreachable: 400,
  forbidden_path: 400,
  read_only_setting: 400,
  setting_not_available: 400,
  compose_refused: 400,
  archive_refused: 422,
  network_invalid: 400,
  unauthenticated: 401,
  bad_credentials: 401,
  forbidden: 403,
  app_powers_refused: 403,
  csrf: 403,
  host_not_allowed: 403,
  wrong_password: 403,
  own_container: 403,
  not_found: 404,
  conflict: 409,
  slot_busy: 409,
  name_taken: 409,
  repo_exists: 409,
  setup_done: 409,
  last_admin: 409,
  network_in_use: 409,
  stack_files_refused: 409,
  network_pool_exhausted: 409,
  db_password_failed: 409,
  db_dump_failed: 502,
  db_load_failed: 502,
  payload_too_large: 413,
  rate_limited: 429,
  engine_unreachable: 502,
  compose_failed: 502,
  registry_unreachable: 502,
  git_failed: 502,
  disk_full: 507,
  not_implemented: 501,
  library_unreadable: 503,
  internal: 500,
};

export function toProblem(err: AppError): Problem {
  const status = STATUS[err.code];
  return {
    type: `about:blank#${err.code}`,
    title: err.code.replace(/_/g, ' '),
    status,
    detail: err.message,
    code: err.code,
    params: err.params,
    fields: err.fields,
  };
}

export function problemResponse(c: Context<AppEnv>, err: AppError): Response {
  const body = toProblem(err);
  const status = STATUS[err.code];
  const headers: Record<string, string> = { 'Content-Type': 'application/problem+json' };
  // The unread rest of a too-large body is dropped with the connection; tell the client not to reuse it.
  if (err.code === 'payload_too_large') headers.Connection = 'close';
  if (err.code === 'rate_limited' && typeof err.params.retry_after === 'number') {
    headers['Retry-After'] = String(err.params.retry_after);
  }
  return c.body(JSON.stringify(body), status, headers);
}

/** Turns anything thrown into an AppError; unknown errors become 'internal' and are logged. */
export function normaliseError(err: unknown, c: Context<AppEnv>): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 413) return new AppError('payload_too_large', 'request body is too large');
    if (err.status === 400) return new AppError('invalid_json', `request body is not valid JSON: ${err.message}`);
    return new AppError('validation', err.message);
  }
  c.get('log')?.error({ err }, 'unhandled error');
  return new AppError('internal', 'internal error; see the server log', { params: { request_id: c.get('requestId') ?? '' } });
}

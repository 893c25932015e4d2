import type { z } from 'zod';
import type { AuthStatusT, JobT, LoginAnswer, StackT } from '../shared/api.ts';
import type { ErrorParams, Problem } from '../shared/errors.ts';

export type LoginAnswerT = z.infer<typeof LoginAnswer>;
export type UserT = LoginAnswerT['user'];
/** `delete` removes the app (its data too with `removeData`, after a backup with `backup`); the others are POST routes of the same name. */
export type StackAction = 'start' | 'stop' | 'restart' | 'update' | 'delete';

/**
 * A refused or failed request. `code` is the API's stable error code (or
 * `network` when the server could not be reached, `unexpected` for an answer
 * that is not problem+json), so the screen can translate it.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly params: ErrorParams,
    readonly fields: string[],
    readonly detail: string,
  ) {
    super(detail || code);
    this.name = 'ApiError';
  }
}

let csrfToken: string | null = null;
let onUnauthenticated: (() => void) | null = null;

/** The token from login, setup or status; sent as X-CSRF-Token on every non-GET request. */
export function setCsrf(token: string | null): void {
  csrfToken = token;
}

/** Called when a logged-in request answers 401, i.e. the session ended elsewhere. */
export function setUnauthenticatedHandler(fn: (() => void) | null): void {
  onUnauthenticated = fn;
}

async function toApiError(res: Response): Promise<ApiError> {
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('json')) {
    const body = (await res.json().catch(() => null)) as Partial<Problem> | null;
    if (body && typeof body.code === 'string') {
      const params: ErrorParams = { ...(body.params ?? {}) };
      // The server puts the wait in params; fall back to the header if a proxy answered instead.
      const retry = res.headers.get('retry-after');
      if (body.code === 'rate_limited' && params.retry_after === undefined && retry) params.retry_after = retry;
      return new ApiError(res.status, body.code, params, body.fields ?? [], body.detail ?? '');
    }
  }
  const text = await res.text().catch(() => '');
  return new ApiError(res.status, 'unexpected', { status: res.status }, [], text.slice(0, 300));
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One fetch of the API: a network failure and a refusal both reject with ApiError; a lost session is reported. */
async function send(path: string, init: RequestInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, credentials: 'same-origin' });
  } catch (e) {
    throw new ApiError(0, 'network', {}, [], e instanceof Error ? e.message : String(e));
  }
  if (!res.ok) {
    const err = await toApiError(res);
    if (err.code === 'unauthenticated') onUnauthenticated?.();
    throw err;
  }
  return res;
}

/** One JSON request to the API; resolves to the parsed body (undefined for 204), rejects with ApiError. */
export async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['X-CSRF-Token'] = csrfToken;
  const res = await send(path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A GET whose answer is plain text (logs); rejects with ApiError like `request`. */
export async function requestText(path: string): Promise<string> {
  return (await send(path, { headers: { Accept: 'text/plain' } })).text();
}

export async function getAuthStatus(): Promise<AuthStatusT> {
  const s = await request<AuthStatusT>('GET', '/api/auth/status');
  setCsrf(s.csrf);
  return s;
}

export async function setupFirstAccount(username: string, password: string): Promise<LoginAnswerT> {
  const a = await request<LoginAnswerT>('POST', '/api/auth/setup', { username, password });
  setCsrf(a.csrf);
  return a;
}

export async function login(username: string, password: string): Promise<LoginAnswerT> {
  const a = await request<LoginAnswerT>('POST', '/api/auth/login', { username, password });
  setCsrf(a.csrf);
  return a;
}

export async function logout(): Promise<void> {
  await request<undefined>('POST', '/api/auth/logout');
  setCsrf(null);
}

export const listStacks = (): Promise<StackT[]> => request<StackT[]>('GET', '/api/stacks');

export interface DeleteOptions {
  removeData?: boolean;
  backup?: boolean;
}

export async function stackAction(name: string, action: StackAction, opts: DeleteOptions = {}): Promise<JobT> {
  const path = `/api/stacks/${encodeURIComponent(name)}`;
  const a =
    action === 'delete'
      ? await request<{ job: JobT }>('DELETE', `${path}?remove_data=${opts.removeData ? 1 : 0}&backup=${opts.backup ? 1 : 0}`)
      : await request<{ job: JobT }>('POST', `${path}/${action}`);
  return a.job;
}

/** What "also remove its data" would remove: the app's own folders and named volumes. */
export const stackData = (name: string): Promise<{ folders: string[]; volumes: string[] }> => request('GET', `/api/stacks/${encodeURIComponent(name)}/data`);

export const getJob = (id: string): Promise<JobT> => request<JobT>('GET', `/api/jobs/${encodeURIComponent(id)}`);

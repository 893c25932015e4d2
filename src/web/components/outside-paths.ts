import { ApiError } from '../api.ts';

/** The host paths an admin may allow once, from a refusal for them (`forbidden_path` with `confirm`); null otherwise. */
export function outsidePaths(err: unknown): string[] | null {
  if (!(err instanceof ApiError) || err.code !== 'forbidden_path' || typeof err.params.confirm !== 'string') return null;
  const paths = err.params.confirm.split('\n').filter((p) => p !== '');
  return paths.length > 0 ? paths : null;
}

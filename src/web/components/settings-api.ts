import type { PathCheckKey, PathCheckT, SettingsT } from '../../shared/settings.ts';
import { request } from '../api.ts';

export const getSettings = (): Promise<SettingsT> => request<SettingsT>('GET', '/api/settings');

export function checkPath(path: string, key?: PathCheckKey): Promise<PathCheckT> {
  const q = new URLSearchParams({ path });
  if (key) q.set('key', key);
  return request<PathCheckT>('GET', `/api/paths/check?${q.toString()}`);
}

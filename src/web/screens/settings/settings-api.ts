import type { JobT, RepoT } from '../../../shared/api.ts';
import type { SelfUpdateStatusT } from '../../../shared/self-update.ts';
import type { PathCheckKey, PathCheckT, PathMoveT, SettingsT, SettingsUpdateT, WizardStateT } from '../../../shared/settings.ts';
import { request } from '../../api.ts';

export const getSettings = (): Promise<SettingsT> => request<SettingsT>('GET', '/api/settings');
export const saveSettings = (body: SettingsUpdateT): Promise<SettingsT> => request<SettingsT>('PUT', '/api/settings', body);
/** The path move: a job (apps stopped, folders copied and verified, apps started there, Kade restarted in place). */
export const movePaths = (body: PathMoveT): Promise<{ job: JobT }> => request('POST', '/api/paths/move', body);

export function checkPath(path: string, key?: PathCheckKey): Promise<PathCheckT> {
  const q = new URLSearchParams({ path });
  if (key) q.set('key', key);
  return request<PathCheckT>('GET', `/api/paths/check?${q.toString()}`);
}

export const getWizard = (): Promise<WizardStateT> => request<WizardStateT>('GET', '/api/wizard');
export const resetWizard = (): Promise<WizardStateT> => request<WizardStateT>('POST', '/api/wizard/reset');
export const completeWizard = (): Promise<WizardStateT> => request<WizardStateT>('POST', '/api/wizard/complete');
export const wizardPaths = (BASE_DIR: string): Promise<SettingsT> => request<SettingsT>('POST', '/api/wizard/paths', { BASE_DIR });

export interface RepoForm {
  url: string;
  branch?: string;
  subdirectory?: string;
  token?: string;
}
export const wizardGit = (body: RepoForm): Promise<{ repo: RepoT; job: JobT }> => request('POST', '/api/wizard/git', body);
export const wizardSync = (): Promise<{ jobs: JobT[] }> => request('POST', '/api/wizard/sync');

/** Kade's own update: availability (force asks the registry now), and the update and rollback jobs. */
export const getSelfUpdate = (force = false): Promise<SelfUpdateStatusT> => request<SelfUpdateStatusT>('GET', `/api/update${force ? '?force=1' : ''}`);
export const startSelfUpdate = (): Promise<{ job: JobT }> => request('POST', '/api/update');
export const startSelfRollback = (): Promise<{ job: JobT }> => request('POST', '/api/update/rollback');
/** The running version; answers while Kade is up, also without a session. */
export const getHealth = (): Promise<{ version: string }> => request<{ version: string }>('GET', '/healthz');

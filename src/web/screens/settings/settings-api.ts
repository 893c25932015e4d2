import type { JobT } from '../../../shared/api.ts';
import type { SelfUpdateStatusT } from '../../../shared/self-update.ts';
import type { PathMoveT, SettingsT, SettingsUpdateT, WizardStateT } from '../../../shared/settings.ts';
import { request } from '../../api.ts';

export const saveSettings = (body: SettingsUpdateT): Promise<SettingsT> => request<SettingsT>('PUT', '/api/settings', body);
/** The path move: a job (apps stopped, folders copied and verified, apps started there, Kade restarted in place). */
export const movePaths = (body: PathMoveT): Promise<{ job: JobT }> => request('POST', '/api/paths/move', body);

export const resetWizard = (): Promise<WizardStateT> => request<WizardStateT>('POST', '/api/wizard/reset');

/** Kade's own update: availability (force asks the registry now), and the update and rollback jobs. */
export const getSelfUpdate = (force = false): Promise<SelfUpdateStatusT> => request<SelfUpdateStatusT>('GET', `/api/update${force ? '?force=1' : ''}`);
export const startSelfUpdate = (): Promise<{ job: JobT }> => request('POST', '/api/update');
export const startSelfRollback = (): Promise<{ job: JobT }> => request('POST', '/api/update/rollback');
/** The running version; answers while Kade is up, also without a session. */
export const getHealth = (): Promise<{ version: string }> => request<{ version: string }>('GET', '/healthz');

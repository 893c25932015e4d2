import type { JobT, RepoT } from '../../../shared/api.ts';
import type { SettingsT, WizardStateT } from '../../../shared/settings.ts';
import { request } from '../../api.ts';

export const getWizard = (): Promise<WizardStateT> => request<WizardStateT>('GET', '/api/wizard');
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

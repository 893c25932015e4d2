import type { StackT } from '../../../../shared/api.ts';
import type { PathCheckT } from '../../../../shared/settings.ts';
import { request } from '../../../api.ts';

export type { PathCheckT, StackT };

/** Takes the compose app in `path` under management; without a name the app is named after its compose project. */
export const adoptApp = (path: string, name?: string): Promise<StackT> => request<StackT>('POST', '/api/stacks/adopt', name ? { path, name } : { path });

/** Whether Kade can see a folder (exists, below the mounted BASE_DIR), and what that BASE_DIR is. */

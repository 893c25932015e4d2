import type { ComponentChild } from 'preact';
import type { Role } from '../../shared/roles.ts';
import type { UserT } from '../api.ts';
import type { MessageKey } from '../i18n.ts';
import { AppsScreen } from './apps/apps-screen.tsx';

/** One screen of the signed-in interface; the header's menu and the router both read this table. */
export interface ScreenRoute {
  /** Path prefix, e.g. '/apps'; the first route also answers '/'. */
  path: string;
  title: MessageKey;
  /** Shown in the main menu when set. */
  nav?: MessageKey;
  /** The lowest role that sees the screen. */
  role: Role;
  render: (user: UserT, path: string) => ComponentChild;
}

export const SCREENS: ScreenRoute[] = [{ path: '/apps', title: 'apps.title', nav: 'nav.apps', role: 'viewer', render: (user) => <AppsScreen user={user} /> }];

export function findScreen(path: string): ScreenRoute | null {
  if (path === '/' || path === '') return SCREENS[0] ?? null;
  return SCREENS.find((s) => path === s.path || path.startsWith(`${s.path}/`)) ?? null;
}

import type { ComponentChild } from 'preact';
import type { Role } from '../../shared/roles.ts';
import type { UserT } from '../api.ts';
import { APP_PATH, INSTALL_PATH } from '../app-paths.ts';
import { lazyScreen } from '../components/lazy-screen.tsx';
import type { MessageKey } from '../i18n.ts';
import { AppsScreen } from '../screens/apps/apps-screen.tsx';

// The apps list is the first screen: in the main bundle. Every other screen loads when first shown.
const AccountScreen = lazyScreen(() => import('../screens/account/account-screen.tsx').then((m) => m.AccountScreen));
const AppScreen = lazyScreen(() => import('../screens/app/app-screen.tsx').then((m) => m.AppScreen));
const AuditScreen = lazyScreen(() => import('../screens/audit/audit-screen.tsx').then((m) => m.AuditScreen));
const BackupsScreen = lazyScreen(() => import('../screens/backups/backups-screen.tsx').then((m) => m.BackupsScreen));
const DiagnosticsScreen = lazyScreen(() => import('../screens/diagnostics/diagnostics-screen.tsx').then((m) => m.DiagnosticsScreen));
const ContainersScreen = lazyScreen(() => import('../screens/containers/containers-screen.tsx').then((m) => m.ContainersScreen));
const JobsScreen = lazyScreen(() => import('../screens/jobs/jobs-screen.tsx').then((m) => m.JobsScreen));
const InstallScreen = lazyScreen(() => import('../screens/install/install-screen.tsx').then((m) => m.InstallScreen));
const NetworksScreen = lazyScreen(() => import('../screens/networks/networks-screen.tsx').then((m) => m.NetworksScreen));
const NotificationsScreen = lazyScreen(() => import('../screens/notifications/notifications-screen.tsx').then((m) => m.NotificationsScreen));
const ReposScreen = lazyScreen(() => import('../screens/repos/repos-screen.tsx').then((m) => m.ReposScreen));
const SettingsScreen = lazyScreen(() => import('../screens/settings/settings-screen.tsx').then((m) => m.SettingsScreen));
const StoreScreen = lazyScreen(() => import('../screens/store/store-screen.tsx').then((m) => m.StoreScreen));
const UsersScreen = lazyScreen(() => import('../screens/users/users-screen.tsx').then((m) => m.UsersScreen));
const WizardScreen = lazyScreen(() => import('../screens/wizard/wizard-screen.tsx').then((m) => m.WizardScreen));

/** One screen of the signed-in interface; the header's menu and the router both read this table. */
export interface ScreenRoute {
  /** Path prefix, e.g. '/apps'; the first route also answers '/'. */
  path: string;
  title: MessageKey;
  /** Shown in the main menu when set. */
  nav?: MessageKey;
  /** The lowest role that sees the screen. */
  role: Role;
  /** The lowest role that sees the menu entry, where it is higher than `role` (the others reach the screen by its address). */
  navRole?: Role;
  /** Matches the whole path instead of the prefix; such routes go before the prefix they live under. */
  pattern?: RegExp;
  render: (user: UserT, path: string) => ComponentChild;
}

export const SCREENS: ScreenRoute[] = [
  // Exactly /apps: the app view below lives under it, and this first row must stay first (it also answers '/').
  { path: '/apps', pattern: /^\/apps\/?$/, title: 'apps.title', nav: 'nav.apps', role: 'viewer', render: (user) => <AppsScreen user={user} /> },
  // One app: /apps/{name}, reached from the names in the apps list; keyed so another app starts fresh.
  { path: '/apps', pattern: APP_PATH, title: 'appview.title', role: 'viewer', render: (user, path) => <AppScreen key={path} user={user} path={path} /> },
  // The install form of one app: /store/{repo}/{app}/install; reached from the store's cards.
  { path: '/store', pattern: INSTALL_PATH, title: 'install.title', role: 'operator', render: (_user, path) => <InstallScreen path={path} /> },
  { path: '/store', title: 'store.title', nav: 'nav.store', role: 'viewer', render: (user) => <StoreScreen user={user} /> },
  { path: '/repos', title: 'repos.title', nav: 'nav.repos', role: 'viewer', render: (user) => <ReposScreen user={user} /> },
  { path: '/containers', title: 'containers.title', nav: 'nav.containers', role: 'viewer', render: (user) => <ContainersScreen user={user} /> },
  // Viewers may read the list, but the screen is a tool for operators and admins: only they get the menu entry.
  {
    path: '/networks',
    title: 'networks.title',
    nav: 'nav.networks',
    role: 'viewer',
    navRole: 'operator',
    render: (user) => <NetworksScreen user={user} />,
  },
  // Everyone sees the backups and the disk; operators act on them, admins set the schedule.
  { path: '/backups', title: 'backups.title', nav: 'nav.backups', role: 'viewer', render: (user) => <BackupsScreen user={user} /> },
  // Past and running jobs with their logs; the app view links here narrowed to its app.
  { path: '/jobs', title: 'jobs.title', nav: 'nav.jobs', role: 'viewer', render: (user) => <JobsScreen user={user} /> },
  { path: '/audit', title: 'audit.title', nav: 'nav.audit', role: 'admin', render: () => <AuditScreen /> },
  { path: '/users', title: 'users.title', nav: 'nav.users', role: 'admin', render: (user) => <UsersScreen user={user} /> },
  // Channels hold secrets (tokens, the SMTP password) and decide who hears of what: admins only.
  { path: '/notifications', title: 'notify.title', nav: 'nav.notifications', role: 'admin', render: () => <NotificationsScreen /> },
  { path: '/settings', title: 'settings.title', nav: 'nav.settings', role: 'admin', render: () => <SettingsScreen /> },
  // What is wrong with the installation and the command that fixes it (GET /api/doctor): admins only.
  { path: '/diagnostics', title: 'doctor.title', nav: 'nav.doctor', role: 'admin', render: () => <DiagnosticsScreen /> },
  // First run: admins are led here while WIZARD_DONE is off, and back from the settings.
  { path: '/wizard', title: 'wizard.title', role: 'admin', render: () => <WizardScreen /> },
  // Reached from the user name in the header, not from the menu.
  { path: '/account', title: 'account.title', role: 'viewer', render: (user) => <AccountScreen user={user} /> },
];

export function findScreen(path: string): ScreenRoute | null {
  if (path === '/' || path === '') return SCREENS[0] ?? null;
  return SCREENS.find((s) => (s.pattern ? s.pattern.test(path) : path === s.path || path.startsWith(`${s.path}/`))) ?? null;
}

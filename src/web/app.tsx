import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { roleAllows } from '../shared/roles.ts';
import { getAuthStatus, type LoginAnswerT, logout, setUnauthenticatedHandler, type UserT } from './api.ts';
import { ErrorMessage } from './components/error-message.tsx';
import { focusPageTitle } from './components/title-focus.ts';
import { type MessageKey, t, useLang } from './i18n.ts';
import { usePath } from './router.ts';
import { LoginScreen } from './screens/login/login-screen.tsx';
import { NotFoundScreen, RoleNeededScreen } from './screens/not-found/not-found-screen.tsx';
import { SetupScreen } from './screens/setup/setup-screen.tsx';
import { useWizardRedirect } from './screens/wizard/use-wizard-redirect.ts';
import { AppHeader } from './shell/app-header.tsx';
import { findScreen } from './shell/routes.tsx';

type View =
  | { kind: 'loading' }
  | { kind: 'failed'; error: unknown }
  | { kind: 'setup' }
  | { kind: 'login'; notice: MessageKey | null }
  /** `fresh`: just logged in, so focus moves to the page; on a reload it stays at the top for the skip link. */
  | { kind: 'in'; user: UserT; fresh: boolean };

/** The auth gate: asks the server who we are, then shows setup, login or the signed-in interface. */
export function App() {
  useLang();
  const [view, setView] = useState<View>({ kind: 'loading' });

  const boot = useCallback(async () => {
    setView({ kind: 'loading' });
    try {
      const s = await getAuthStatus();
      if (s.setup_required) setView({ kind: 'setup' });
      else if (s.user) setView({ kind: 'in', user: s.user, fresh: false });
      else setView({ kind: 'login', notice: null });
    } catch (error) {
      setView({ kind: 'failed', error });
    }
  }, []);

  useEffect(() => {
    void boot();
    setUnauthenticatedHandler(() => setView({ kind: 'login', notice: 'login.expired' }));
    return () => setUnauthenticatedHandler(null);
  }, [boot]);

  const loggedIn = (a: LoginAnswerT) => setView({ kind: 'in', user: a.user, fresh: true });
  const doLogout = async () => {
    try {
      await logout();
    } finally {
      setView({ kind: 'login', notice: null });
    }
  };

  switch (view.kind) {
    case 'loading':
      return (
        <p class="boot" role="status">
          {t('app.loading')}
        </p>
      );
    case 'failed':
      return (
        <div class="boot">
          <ErrorMessage error={view.error} />
          <button type="button" class="btn" onClick={() => void boot()}>
            {t('app.retry')}
          </button>
        </div>
      );
    case 'setup':
      return <SetupScreen onDone={loggedIn} onAlreadyDone={() => setView({ kind: 'login', notice: 'error.setup_done' })} />;
    case 'login':
      return <LoginScreen onDone={loggedIn} notice={view.notice} />;
    case 'in':
      return <SignedIn user={view.user} fresh={view.fresh} onLogout={doLogout} />;
  }
}

function SignedIn({ user, fresh, onLogout }: { user: UserT; fresh: boolean; onLogout: () => Promise<void> }) {
  const path = usePath();
  const moveFocus = useRef(fresh);
  useWizardRedirect(user);
  const found = findScreen(path);
  const screen = found && roleAllows(user.role, found.role) ? found : null;
  // A screen above the user's role says which role it needs, not that it does not exist.
  const titleKey: MessageKey = found ? found.title : 'notfound.title';
  const title = t(titleKey);

  useEffect(() => {
    document.title = `${title} · ${t('app.name')}`;
  }, [title]);
  // After a login or a navigation, focus lands on the page heading instead of being lost on <body>.
  useEffect(() => {
    if (moveFocus.current) focusPageTitle();
    moveFocus.current = true;
  }, [path]);

  return (
    <>
      <a class="skip-link" href="#main">
        {t('app.skip')}
      </a>
      <AppHeader user={user} path={path} onLogout={onLogout} />
      <main id="main" class="app-main" tabIndex={-1}>
        {screen ? screen.render(user, path) : found ? <RoleNeededScreen title={found.title} need={found.role} user={user} /> : <NotFoundScreen />}
      </main>
    </>
  );
}

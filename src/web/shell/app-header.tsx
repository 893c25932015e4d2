import { useEffect, useRef } from 'preact/hooks';
import { roleAllows } from '../../shared/roles.ts';
import type { UserT } from '../api.ts';
import { Brand } from '../components/brand.tsx';
import { useAction } from '../components/use-action.ts';
import { isMessageKey, t } from '../i18n.ts';
import { onLinkClick } from '../router.ts';
import { findScreen, SCREENS } from './routes.tsx';
import './app-header.css';
import { LanguageSwitch } from '../components/language-switch.tsx';

interface Props {
  user: UserT;
  path: string;
  onLogout: () => Promise<void>;
}

export function AppHeader({ user, path, onLogout }: Props) {
  const leave = useAction(onLogout);
  const { busy } = leave;
  const roleKey = `role.${user.role}`;
  const role = isMessageKey(roleKey) ? t(roleKey) : user.role;
  const logout = () => leave.run();
  const current = findScreen(path);
  // The menu is one line that scrolls sideways where it does not fit: the current entry is kept in sight.
  const nav = useRef<HTMLElement>(null);
  useEffect(() => {
    nav.current?.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [current]);
  return (
    <header class="app-header">
      <div class="app-header-inner">
        <a href="/" class="brand-link" onClick={onLinkClick}>
          <Brand />
        </a>
        <nav aria-label={t('nav.label')} class="main-nav" ref={nav}>
          {SCREENS.filter((s) => s.nav && roleAllows(user.role, s.navRole ?? s.role)).map((s) => (
            <a key={s.path} href={s.path} onClick={onLinkClick} aria-current={current === s ? 'page' : undefined}>
              {s.nav ? t(s.nav) : null}
            </a>
          ))}
        </nav>
        <div class="header-tools">
          <p class="user" data-testid="current-user">
            <span class="sr-only">{t('header.user_label')} </span>
            {/* The way to the own account page (password change), for every role. */}
            <a
              href="/account"
              class="user-name"
              onClick={onLinkClick}
              title={t('header.account')}
              aria-current={current?.path === '/account' ? 'page' : undefined}
            >
              {user.name}
            </a>
            <span class="role-badge">{role}</span>
          </p>
          <LanguageSwitch />
          <button type="button" class="btn btn-quiet" onClick={() => void logout()} aria-busy={busy}>
            {busy ? t('header.logging_out') : t('header.logout')}
          </button>
        </div>
      </div>
    </header>
  );
}

import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { AlertBox } from './error-message.tsx';
import { focusPageTitleIfPending } from './title-focus.ts';

/** How long the one retry of a screen's code waits: a fetch that failed once in passing usually works then. */
const RETRY_MS = 500;

/** The screen's code, asked a second time when the first attempt fails (the first failure is logged as a warning). */
async function loadWithRetry<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (first) {
    console.warn('kade: loading the code of a screen failed; trying once more:', first);
    await new Promise((r) => setTimeout(r, RETRY_MS));
    return load();
  }
}

/**
 * A screen whose code loads when it is first shown, so the first visit downloads only the apps list and
 * the login (SPEC: the first screen stays small). Once loaded, the module is kept: the next visit renders
 * at once. A chunk that cannot be fetched, also on a second try (Kade was updated meanwhile), shows why and a
 * reload button, not a blank page.
 */
export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return function LazyScreen(props: P) {
    const [Screen, setScreen] = useState<ComponentType<P> | null>(() => loaded);
    const [error, setError] = useState<unknown>(null);
    useEffect(() => {
      if (Screen) return;
      let alive = true;
      loadWithRetry(load).then(
        (c) => {
          loaded = c;
          if (alive) setScreen(() => c);
        },
        (e: unknown) => {
          console.error('kade: the code of a screen could not be loaded:', e);
          if (alive) setError(e);
        },
      );
      return () => {
        alive = false;
      };
    }, [Screen]);
    // The heading exists once the loaded screen has rendered: a navigation's focus lands there now.
    useEffect(() => {
      if (Screen) focusPageTitleIfPending();
    }, [Screen]);
    if (Screen) return <Screen {...props} />;
    return error ? (
      <AlertBox>
        <p>{t('common.screen_failed', { detail: error instanceof Error ? error.message : String(error) })}</p>
        <button type="button" class="btn btn-small" onClick={() => window.location.reload()}>
          {t('common.reload')}
        </button>
      </AlertBox>
    ) : (
      <p class="muted" role="status">
        {t('common.loading')}
      </p>
    );
  };
}

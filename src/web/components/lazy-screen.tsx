import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { ErrorMessage } from './error-message.tsx';
import { focusPageTitleIfPending } from './title-focus.ts';

/**
 * A screen whose code loads when it is first shown, so the first visit downloads only the apps list and
 * the login (SPEC: the first screen stays small). Once loaded, the module is kept: the next visit renders
 * at once. A chunk that cannot be fetched (Kade was updated meanwhile) shows the error, not a blank page.
 */
export function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return function LazyScreen(props: P) {
    const [Screen, setScreen] = useState<ComponentType<P> | null>(() => loaded);
    const [error, setError] = useState<unknown>(null);
    useEffect(() => {
      if (Screen) return;
      let alive = true;
      load().then(
        (c) => {
          loaded = c;
          if (alive) setScreen(() => c);
        },
        (e: unknown) => alive && setError(e),
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
      <ErrorMessage error={error} />
    ) : (
      <p class="muted" role="status">
        {t('common.loading')}
      </p>
    );
  };
}

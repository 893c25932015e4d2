import { useEffect } from 'preact/hooks';
import type { UserT } from '../../api.ts';
import { currentPath, navigate } from '../../router.ts';
import { getWizard } from './wizard-api.ts';

/**
 * Leads an admin into the setup wizard while it is not done. Only from the page
 * they landed on: someone who already clicked elsewhere is not pulled away.
 */
export function useWizardRedirect(user: UserT): void {
  useEffect(() => {
    if (user.role !== 'admin') return;
    const landed = currentPath();
    let alive = true;
    getWizard()
      .then((w) => {
        if (alive && !w.done && currentPath() === landed && !landed.startsWith('/wizard')) navigate('/wizard');
      })
      // Without an answer the interface works as before; the wizard stays reachable from the settings.
      .catch(() => undefined);
    return () => {
      alive = false;
    };
  }, [user.name, user.role]);
}

import { useEffect, useState } from 'preact/hooks';
import { checkPath } from '../../components/settings-api.ts';
import { t } from '../../i18n.ts';

const DELAY_MS = 300;

/** The folders of the ALLOWED_HOST_DIRS box, one per line, as the save sends them. */
export const allowedDirsOf = (text: string): string[] =>
  text
    .split('\n')
    .map((d) => d.trim())
    .filter(Boolean);

/**
 * What is wrong with the first allowed host folder the save would refuse, while typing: a relative one at once, the
 * others as the server judges them (GET /api/paths/check?key=ALLOWED_HOST_DIRS: the root, a system folder, the
 * engine socket, Kade's own folders). Null when all pass or the check could not be asked (the save still judges).
 */
export function useAllowedDirsProblem(text: string | undefined): string | null {
  const dirs = allowedDirsOf(text ?? '');
  const relative = dirs.find((d) => !d.startsWith('/'));
  const [refused, setRefused] = useState<string | null>(null);
  const key = dirs.join('\n');
  useEffect(() => {
    setRefused(null);
    const absolute = dirs.filter((d) => d.startsWith('/'));
    if (absolute.length === 0) return;
    let live = true;
    const timer = setTimeout(() => {
      Promise.all(absolute.map((d) => checkPath(d, 'ALLOWED_HOST_DIRS'))).then(
        (answers) => live && setRefused(answers.find((a) => !a.ok)?.path ?? null),
        () => undefined,
      );
    }, DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  if (relative) return t('settings.allowed_dir_relative', { path: relative });
  return refused ? t('settings.allowed_dir_forbidden', { path: refused }) : null;
}

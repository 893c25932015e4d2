import type { PathCheckT, PathReason } from '../../shared/settings.ts';
import { t } from '../i18n.ts';

/** Why a folder cannot be used, in the current language; one literal key per reason. */
export function reasonText(reason: PathReason, base: string): string {
  switch (reason) {
    case 'relative':
      return t('paths.reason.relative');
    case 'system':
      return t('paths.reason.system');
    case 'outside_base':
      return t('paths.reason.outside_base', { base });
    case 'not_a_directory':
      return t('paths.reason.not_a_directory');
    case 'not_writable':
      return t('paths.reason.not_writable');
    case 'not_creatable':
      return t('paths.reason.not_creatable');
    case 'missing':
      return t('paths.reason.missing');
    case 'not_allowed':
      return t('paths.reason.not_allowed');
  }
}

/** The `.env` line that makes a folder reachable, ready to copy. */
export function FixLine({ fix }: { fix: string }) {
  return (
    <p class="fix-line">
      <span>{t('paths.fix')}</span> <code>{fix}</code>
    </p>
  );
}

/** The outcome of a live folder check, under its field. */
export function PathStatus({ id, check, pending }: { id: string; check: PathCheckT | null; pending: boolean }) {
  if (pending && !check) {
    return (
      <p class="path-status muted" id={id}>
        {t('paths.checking')}
      </p>
    );
  }
  if (!check) return null;
  if (check.ok) {
    return (
      <p class="path-status path-ok" id={id}>
        <span aria-hidden="true">✓ </span>
        {check.exists ? t('paths.ok') : t('paths.ok_new')}
      </p>
    );
  }
  return (
    <div class="path-status path-bad" id={id}>
      <p>
        <span aria-hidden="true">⚠ </span>
        {check.reason ? reasonText(check.reason, check.base) : t('paths.reason.not_writable')}
      </p>
      {check.fix && <FixLine fix={check.fix} />}
    </div>
  );
}

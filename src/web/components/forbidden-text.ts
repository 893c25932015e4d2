import type { ErrorParams } from '../../shared/errors.ts';
import { t } from '../i18n.ts';

/** Why the server refused a host path or device (`forbidden_path`), in the current language; one literal key per reason. */
export function forbiddenText(params: ErrorParams): string {
  const path = String(params.path ?? '');
  const own = String(params.own ?? '');
  switch (params.reason) {
    case 'relative':
      return t('configure.forbidden.relative', { path });
    case 'not_a_device':
      return t('configure.forbidden.not_a_device', { path });
    case 'not_allowed':
      return t('configure.forbidden.not_allowed', { path, own });
    case 'variable':
      return t('configure.forbidden.variable', { path });
    case 'other_app':
      return t('configure.forbidden.other_app', { path, own, app: String(params.app ?? '') });
    default:
      return t('configure.forbidden.other', { path });
  }
}

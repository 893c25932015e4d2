import type { ErrorParams } from '../../../../shared/errors.ts';
import { t } from '../../../i18n.ts';

/** Why the server refused a host path or device of an extra (`forbidden_path`), in the current language; one literal key per reason. */
export function forbiddenText(params: ErrorParams): string {
  const path = String(params.path ?? '');
  switch (params.reason) {
    case 'relative':
      return t('configure.forbidden.relative', { path });
    case 'root':
      return t('configure.forbidden.root', { path });
    case 'engine_socket':
      return t('configure.forbidden.engine_socket', { path });
    case 'system_folder':
      return t('configure.forbidden.system_folder', { path });
    case 'not_a_device':
      return t('configure.forbidden.not_a_device', { path });
    default:
      return t('configure.forbidden.other', { path });
  }
}

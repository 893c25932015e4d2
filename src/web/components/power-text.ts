import type { PowerUseT, StorePowerT } from '../../shared/powers.ts';
import { t } from '../i18n.ts';

/** One power in words, naming the service that gets it (the install's review). */
export function powerLine(p: PowerUseT): string {
  const { service, value } = p;
  switch (p.power) {
    case 'privileged':
      return t('powers.privileged', { service });
    case 'network_mode':
      return t('powers.network_mode', { service, value });
    case 'pid':
      return t('powers.pid', { service, value });
    case 'ipc':
      return t('powers.ipc', { service, value });
    case 'uts':
      return t('powers.uts', { service });
    case 'userns_mode':
      return t('powers.userns_mode', { service });
    case 'cgroup':
      return t('powers.cgroup', { service });
    case 'cap_add':
      return t('powers.cap_add', { service, value });
    case 'security_opt':
      return t('powers.security_opt', { service, value });
    case 'devices':
      return t('powers.devices', { service, value });
    case 'engine_socket':
      return t('powers.engine_socket', { service, value });
  }
}

/** A host folder or file the app binds outside its own folders, in words: read-only, or to read and change. */
export const hostPathLine = (path: string, readOnly: boolean): string => t(readOnly ? 'powers.host_path_ro' : 'powers.host_path_rw', { path });

/** One power as the store's card names it: short, without the service. */
export function storePowerText(p: StorePowerT): string {
  const { value } = p;
  switch (p.power) {
    case 'host_path':
      return t(p.read_only ? 'power.host_path_ro' : 'power.host_path_rw', { value });
    case 'engine_socket':
      return t('power.engine_socket');
    case 'network_mode':
      return value === 'host' ? t('power.network_mode_host') : t('power.network_mode', { value });
    case 'pid':
      return value === 'host' ? t('power.pid_host') : t('power.pid', { value });
    case 'ipc':
      return value === 'host' ? t('power.ipc_host') : t('power.ipc', { value });
    case 'privileged':
    case 'uts':
    case 'userns_mode':
    case 'cgroup':
      return t(`power.${p.power}`);
    default:
      return t(`power.${p.power}`, { value });
  }
}

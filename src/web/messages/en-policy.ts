/** English messages of the compose policy (powers over the host) and of settings that take effect; merged into `en` in en.ts. */
export const enPolicy = {
  'powers.title': 'This app gets powers over the host',
  'powers.intro': 'Only install it if you trust its template: with these powers the app can read or change the host, not just its own folder.',
  'powers.privileged': 'Privileged mode: full access to the host and all its devices ({service})',
  'powers.network_mode': 'The host network or another container’s network ({value}): it sees every port of the host ({service})',
  'powers.pid': 'The host’s processes ({value}): it can see and signal them ({service})',
  'powers.ipc': 'Shared memory of the host or another container ({value}) ({service})',
  'powers.uts': 'The host name of the host ({service})',
  'powers.userns_mode': 'No user namespace: root in the app is root on the host ({service})',
  'powers.cgroup': 'The host’s control groups ({service})',
  'powers.cap_add': 'Extra kernel capability {value} ({service})',
  'powers.security_opt': 'A security protection switched off: {value} ({service})',
  'powers.devices': 'The device {value} of the host ({service})',
  'powers.engine_socket': 'Full control of every container on this host: the engine socket {value} ({service})',
  'powers.admin_only': 'Only an admin can install this app (setting ALLOW_PRIVILEGED_APPS). Ask an admin, or go back.',
  'powers.checking': 'Checking what the app gets over the host…',

  'settings.security': 'Apps and the host',
  'settings.security_intro': 'What an installed app may get from the host.',
  'settings.allow_privileged': 'Who may install apps with powers over the host (ALLOW_PRIVILEGED_APPS)',
  'settings.allow_privileged.admins': 'Only admins',
  'settings.allow_privileged.everyone': 'Admins and operators',
  'settings.allow_privileged_hint':
    'Powers over the host: privileged mode, the host network, process or user namespace, extra kernel capabilities, switched-off security protections. The install form names them.',
  'settings.allowed_host_dirs': 'Host folders apps may use (ALLOWED_HOST_DIRS)',
  'settings.allowed_host_dirs_hint':
    'One absolute folder per line, for example a media folder. Besides these, an app may only use its own data folder and the serial and video devices Kade lists.',
  'settings.allowed_dir_relative': '{path} is not an absolute path: start it with /.',
  'settings.allowed_dir_forbidden':
    '{path} cannot be allowed: it is or holds a folder no app may use (the root, the host’s system folders, the engine socket or Kade’s own folders).',
  'settings.update_check': 'Check once a day whether the images of the apps have an update (UPDATE_CHECK_ENABLED)',
  'settings.update_check_hint': 'The check asks the registries the images come from, such as Docker Hub. Switched off, Kade never asks them on its own.',
} as const;

/** English messages of the Diagnostics screen; merged into `en` in en.ts. */
export const enDoctor = {
  'nav.doctor': 'Diagnostics',

  'doctor.title': 'Diagnostics',
  'doctor.intro':
    'Kade checks its own installation: the engine, its container, whether BASE_DIR is really mounted, its account, free space, the folders it uses and the store. Each finding says what is wrong and the command that fixes it. On the server, sh install.sh --doctor runs the same checks and the ones only the host can make.',
  'doctor.run_again': 'Run again',
  'doctor.running': 'Checking…',
  'doctor.summary_ok': 'No errors found.',
  'doctor.summary_errors': '{count} error(s) found.',
  'doctor.summary_warnings': '{count} warning(s).',
  'doctor.status.ok': 'OK',
  'doctor.status.warn': 'Warning',
  'doctor.status.error': 'Error',
  'doctor.fix': 'Fix:',
  'doctor.copy': 'Copy',
  'doctor.copied': 'Copied',
  'doctor.copy_failed': 'Copy failed; select the text instead',
  'doctor.check.engine': 'Container engine',
  'doctor.check.own_container': "Kade's own container",
  'doctor.check.mount': 'Mounted folder',
  'doctor.check.account': 'Account (SVC_UID)',
  'doctor.check.disk': 'Free space',
  'doctor.check.paths': 'Folder in use',
  'doctor.check.stacks': 'Apps under LIBRARY_DIR',
  'doctor.check.store': 'Store cache',
  'doctor.check.other': 'Check',
} as const;

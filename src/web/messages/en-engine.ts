/** English messages of the engine restart (components/engine-restart.tsx); merged into `en` in en.ts. */
export const enEngine = {
  'engine_restart.title': 'Restart the container engine',
  'engine_restart.intro':
    "Restarts Docker on the server where systemd runs it. Every app's containers stop meanwhile; those with a restart policy start again, and Kade picks up where it was.",
  'engine_restart.button': 'Restart engine…',
  'engine_restart.busy': 'Restarting…',
  'engine_restart.running': 'Restarting the container engine',
  'engine_restart.confirm_title': 'Restart the container engine now?',
  'engine_restart.confirm_text':
    'All containers stop while the engine restarts, Kade too when it runs in a container. Apps without a restart policy stay stopped until you start them.',
  'engine_restart.confirm_yes': 'Restart engine',
  'engine_restart.not_systemd':
    "Kade cannot restart the engine here: it is not run by systemd on this host (PID 1 is '{pid1}'). Restart it on the host with the command your system uses.",
  'engine_restart.no_unit':
    'Kade cannot restart the engine here: systemd on this host has no {unit} unit, so the engine runs some other way. Restart it on the host with the command your system uses.',
  'engine_restart.image_missing':
    'Kade needs the image {image} (SVC_PROBE_IMAGE) for its helper container and the engine does not have it: docker pull {image}',
} as const;

/** English messages of adopting an outside compose app on the apps screen; merged into `en` in en.ts. */
export const enAdopt = {
  'adopt.open': 'Adopt an app',
  'adopt.title': 'Adopt an app',
  'adopt.intro':
    'Take a compose app you started yourself under management. Kade leaves its folder where it is and changes none of its files; running containers keep running.',
  'adopt.path': 'Folder of the app',
  'adopt.path_hint':
    'The full path of the folder with the compose file (docker-compose.yml or compose.yaml), as Kade sees it. It must lie below BASE_DIR, the folder mounted into Kade.',
  'adopt.name': 'Name in Kade (optional)',
  'adopt.name_hint': 'Empty: the compose project name of the folder. Lower-case letters, digits, _ and -.',
  'adopt.submit': 'Adopt',
  'adopt.busy': 'Adopting…',
  'adopt.cancel': 'Cancel',
  'adopt.checking': 'Checking the folder…',
  'adopt.check_ok': 'Kade can see this folder (below BASE_DIR {base}).',
  'adopt.check_outside': 'Kade cannot see this folder: it must lie below BASE_DIR ({base}), the folder mounted into Kade.',
  'adopt.check_missing': 'Kade finds no folder at this path below {base}.',
  'adopt.check_file': 'This is a file, not a folder.',
  'adopt.need_absolute': 'Give the full path of the folder: it starts with /.',
  'adopt.error.unreachable':
    'Kade cannot see {path}. The folder of an adopted app must lie below BASE_DIR ({base}), the folder mounted into Kade: move the app’s folder there, then adopt it.',
  'adopt.error.project_name':
    'The compose project name of this folder, “{name}”, cannot be an app name. Give a name in Kade: lower-case letters, digits, _ and -.',
  'adopt.error.adopted_already': 'This folder is adopted already, as the app {stack}.',
  'adopt.error.app_folder': 'This folder is already an app folder of Kade.',
  'adopt.done': '{name} is adopted: Kade manages it now, and its folder stays where it was.',
  'adopt.done_open': 'Open {name}',
} as const;

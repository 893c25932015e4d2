import type { enPolicy } from './en-policy.ts';

/** Dutch messages of the compose policy (macht over de host) and of instellingen die werken; merged into `nl` in nl.ts. */
export const nlPolicy: Record<keyof typeof enPolicy, string> = {
  'powers.title': 'Deze app krijgt macht over de host',
  'powers.intro': 'Installeer hem alleen als je het sjabloon vertrouwt: met deze rechten kan de app de host lezen of veranderen, niet alleen zijn eigen map.',
  'powers.privileged': 'Geprivilegieerde modus: volledige toegang tot de host en al zijn apparaten ({service})',
  'powers.network_mode': 'Het netwerk van de host of van een andere container ({value}): hij ziet elke poort van de host ({service})',
  'powers.pid': 'De processen van de host ({value}): hij kan ze zien en signalen sturen ({service})',
  'powers.ipc': 'Gedeeld geheugen van de host of een andere container ({value}) ({service})',
  'powers.uts': 'De hostnaam van de host ({service})',
  'powers.userns_mode': 'Geen gebruikersnaamruimte: root in de app is root op de host ({service})',
  'powers.cgroup': 'De control groups van de host ({service})',
  'powers.cap_add': 'Extra kernelrecht {value} ({service})',
  'powers.security_opt': 'Een beveiliging uitgeschakeld: {value} ({service})',
  'powers.devices': 'Het apparaat {value} van de host ({service})',
  'powers.engine_socket': 'Volledige controle over elke container op deze host: de engine-socket {value} ({service})',
  'powers.admin_only': 'Alleen een beheerder kan deze app installeren (instelling ALLOW_PRIVILEGED_APPS). Vraag een beheerder, of ga terug.',
  'powers.checking': 'Nagaan wat de app van de host krijgt…',

  'settings.security': 'Apps en de host',
  'settings.security_intro': 'Wat een geïnstalleerde app van de host mag krijgen.',
  'settings.allow_privileged': 'Wie apps met macht over de host mag installeren (ALLOW_PRIVILEGED_APPS)',
  'settings.allow_privileged.admins': 'Alleen beheerders',
  'settings.allow_privileged.everyone': 'Beheerders en operators',
  'settings.allow_privileged_hint':
    'Macht over de host: geprivilegieerde modus, het netwerk, de processen of de gebruikers van de host, extra kernelrechten, uitgeschakelde beveiliging. Het installatieformulier noemt ze.',
  'settings.allowed_host_dirs': 'Mappen van de host die apps mogen gebruiken (ALLOWED_HOST_DIRS)',
  'settings.allowed_host_dirs_hint':
    'Eén absolute map per regel, bijvoorbeeld een map met media. Verder mag een app alleen zijn eigen datamap gebruiken en de seriële en video-apparaten die Kade toont.',
  'settings.allowed_dir_relative': '{path} is geen absoluut pad: begin het met /.',
  'settings.allowed_dir_forbidden':
    '{path} kan niet worden toegestaan: het is of bevat een map die geen app mag gebruiken (de root, systeemmappen van de host, de engine-socket of Kades eigen mappen).',
  'settings.update_check': 'Elke dag nagaan of de images van de apps een update hebben (UPDATE_CHECK_ENABLED)',
  'settings.update_check_hint':
    'De controle vraagt het aan de registries waar de images vandaan komen, zoals Docker Hub. Uitgeschakeld vraagt Kade dat nooit uit zichzelf.',
};

/** Dutch messages of adopting an outside compose app on the apps screen; merged into `nl` in nl.ts, which is typed against the English keys. */
export const nlAdopt = {
  'adopt.open': 'App overnemen',
  'adopt.title': 'App overnemen',
  'adopt.intro':
    'Neem een compose-app die je zelf hebt gestart in beheer. Kade laat de map staan waar hij staat en verandert geen van de bestanden; draaiende containers blijven draaien.',
  'adopt.path': 'Map van de app',
  'adopt.path_hint':
    'Het volledige pad van de map met het compose-bestand (docker-compose.yml of compose.yaml), zoals Kade het ziet. De map moet onder BASE_DIR liggen, de map die in Kade is gekoppeld.',
  'adopt.name': 'Naam in Kade (optioneel)',
  'adopt.name_hint': 'Leeg: de compose-projectnaam van de map. Kleine letters, cijfers, _ en -.',
  'adopt.submit': 'Overnemen',
  'adopt.busy': 'Bezig met overnemen…',
  'adopt.cancel': 'Annuleren',
  'adopt.checking': 'De map wordt gecontroleerd…',
  'adopt.check_ok': 'Kade kan deze map zien (onder BASE_DIR {base}).',
  'adopt.check_outside': 'Kade kan deze map niet zien: hij moet onder BASE_DIR ({base}) liggen, de map die in Kade is gekoppeld.',
  'adopt.check_missing': 'Kade vindt op dit pad onder {base} geen map.',
  'adopt.check_file': 'Dit is een bestand, geen map.',
  'adopt.need_absolute': 'Geef het volledige pad van de map: het begint met /.',
  'adopt.error.unreachable':
    'Kade kan {path} niet zien. De map van een overgenomen app moet onder BASE_DIR ({base}) liggen, de map die in Kade is gekoppeld: verplaats de map van de app daarheen en neem hem dan over.',
  'adopt.error.project_name': 'De compose-projectnaam van deze map, “{name}”, kan geen app-naam zijn. Geef een naam in Kade: kleine letters, cijfers, _ en -.',
  'adopt.error.adopted_already': 'Deze map is al overgenomen, als de app {stack}.',
  'adopt.error.app_folder': 'Deze map is al een app-map van Kade.',
  'adopt.done': '{name} is overgenomen: Kade beheert de app nu, en de map blijft waar hij was.',
  'adopt.done_open': '{name} openen',
};

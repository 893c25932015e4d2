/** Dutch messages of the shared form parts (src/web/forms); merged into `nl` in nl.ts, which is typed against the English keys. */
export const nlForms = {
  'field.required': 'Dit veld is verplicht.',
  'field.number': 'Vul een getal in.',
  'field.port': 'Een poort is een geheel getal van {min} tot en met {max}.',
  'field.min': 'Vul {min} of meer in.',
  'field.max': 'Vul {max} of minder in.',
  'field.email': 'Vul een e-mailadres in, zoals naam@voorbeeld.nl.',
  'field.url': 'Vul een adres in, zoals https://voorbeeld.nl.',
  'field.connect': 'Vul een adres in zoals {scheme}://host.docker.internal:1234 (schema, host en poort, niets erachter).',
  'field.pattern': 'Deze waarde heeft niet de vorm die de app verwacht ({pattern}).',
  'field.option': 'Kies een van: {options}.',
  'field.too_long': 'Hoogstens {max} tekens.',
  'field.min_length': 'Minstens {min} tekens.',
  'field.weak':
    'Te zwak: gebruik minstens {min} tekens met drie van kleine letters, hoofdletters, cijfers en andere tekens, of een wachtzin van minstens {passphrase} tekens.',

  'check.invalid': 'Kade accepteert deze waarde niet.',
  'check.choice': 'Kies een van de aangeboden waarden.',
  'check.whole_number': 'Vul een geheel getal in.',
  'check.between': 'Vul een geheel getal van {min} tot en met {max} in.',
  'check.too_many': 'Hoogstens {max} items.',
  'check.format': 'Deze waarde heeft niet de verwachte vorm.',
  'check.absolute': 'Vul een absoluut pad in, beginnend met /.',
  'check.http_url': 'Vul een adres in dat begint met http:// of https://, zoals https://ntfy.sh/mijn-onderwerp.',
  'check.emails': 'Vul een of meer e-mailadressen in, zoals naam@voorbeeld.nl, gescheiden door komma’s.',
  'check.timezone': 'Geen bekende tijdzone: gebruik een naam zoals Europe/Amsterdam of UTC.',
  'check.registry_url': 'Vul een registry-host in, zoals ghcr.io, eventueel met https://, een poort en een pad.',
  'check.listed_twice': '{value} staat er twee keer in.',

  'name.invalid.app': '“{name}” is geen geldige naam: gebruik kleine letters, cijfers, _ en -, beginnend met een letter of cijfer, hoogstens 63 tekens.',
  'name.invalid.user':
    '“{name}” is geen geldige gebruikersnaam: gebruik kleine letters, cijfers, . @ _ en -, beginnend met een letter of cijfer, hoogstens 63 tekens.',
  'name.invalid.network': '“{name}” is geen geldige netwerknaam: gebruik letters, cijfers, _ . en -, beginnend met een letter of cijfer, hoogstens 63 tekens.',
  'name.taken.user': 'Er bestaat al een account met de naam “{name}”; kies een andere naam.',
  'name.taken.network': 'Er bestaat al een netwerk met de naam “{name}”; kies een andere naam.',

  'connect.checking': '{name} (poorten worden gecontroleerd…)',
  'connect.not_published': '{name} publiceert geen poort voor {port} op deze host (of draait niet): zet publiceren aan in de instellingen.',
  'connect.loopback_only': '{name} publiceert poort {port} alleen op 127.0.0.1, en die kunnen andere apps niet bereiken: publiceer hem op alle adressen.',
  'connect.none': 'Hier is geen {app} geïnstalleerd. Installeer die eerst (met gepubliceerde poort), of typ het adres van een andere, zoals {example}.',
  'connect.address': 'Gebruikt adres: {address}',

  'ports.not_checked': 'Niet gecontroleerd: vul eerst een geldige poort in.',
  'ports.probe_missing':
    'Poort {port} wordt vrij verondersteld: de poortcontrole heeft de image {image} nodig op de container-engine, en die ontbreekt. Haal hem op met: docker pull {image}',

  'install.port_taken': 'Poort {port} is op deze host in gebruik: kies een andere poort, of bevestig hieronder dat de app hem toch gebruikt.',
  'install.port_taken_next':
    'Poort {port} is op deze host in gebruik: neem de volgende vrije poort {next}, kies een andere, of bevestig hieronder dat de app hem toch gebruikt.',
  'install.port_taken_by': 'Poort {port} is in gebruik door {container}: kies een andere poort, of bevestig hieronder dat de app hem toch gebruikt.',
  'install.port_taken_by_next':
    'Poort {port} is in gebruik door {container}: neem de volgende vrije poort {next}, kies een andere, of bevestig hieronder dat de app hem toch gebruikt.',
  'install.port_anyway': 'Poort {port} toch gebruiken (de app kan niet starten zolang iets anders hem bezet)',
  'install.outside_allow': '{path} toestaan voor deze app',
  'install.outside_allow_hint': 'Als beheerder mag je deze app een map buiten de eigen map geven; de installatie legt je keuze vast in het auditlog.',
  'install.name_blocked': 'Kies eerst een andere naam: “{name}” is al geïnstalleerd.',
  'install.name_blocked_invalid': 'Kies eerst een geldige naam.',
};

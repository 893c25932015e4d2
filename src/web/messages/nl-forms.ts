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

  'connect.checking': '{name} (poorten worden gecontroleerd…)',
  'connect.not_published': '{name} publiceert geen poort voor {port} op deze host (of draait niet): zet publiceren aan in de instellingen.',
  'connect.loopback_only': '{name} publiceert poort {port} alleen op 127.0.0.1, en die kunnen andere apps niet bereiken: publiceer hem op alle adressen.',
  'connect.none': 'Hier is geen {app} geïnstalleerd. Installeer die eerst (met gepubliceerde poort), of typ het adres van een andere, zoals {example}.',
  'connect.address': 'Gebruikt adres: {address}',

  'ports.not_checked': 'Niet gecontroleerd: vul eerst een geldige poort in.',
  'ports.probe_missing':
    'Poort {port} wordt vrij verondersteld: de poortcontrole heeft de image {image} nodig op de container-engine, en die ontbreekt. Haal hem op met: docker pull {image}',

  'install.name_blocked': 'Kies eerst een andere naam: “{name}” is al geïnstalleerd.',
  'install.name_blocked_invalid': 'Kies eerst een geldige naam.',
};

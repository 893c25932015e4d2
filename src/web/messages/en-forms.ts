/** English messages of the shared form parts (src/web/forms): field rules, connect fields, port check. */
export const enForms = {
  'field.required': 'This field is required.',
  'field.number': 'Enter a number.',
  'field.port': 'A port is a whole number from {min} to {max}.',
  'field.min': 'Enter {min} or more.',
  'field.max': 'Enter {max} or less.',
  'field.email': 'Enter an e-mail address such as name@example.org.',
  'field.url': 'Enter an address such as https://example.org.',
  'field.connect': 'Enter an address such as {scheme}://host.docker.internal:1234 (scheme, host and port, nothing after it).',
  'field.pattern': 'This value does not have the form the app expects ({pattern}).',
  'field.option': 'Choose one of: {options}.',
  'field.too_long': 'At most {max} characters.',
  'field.min_length': 'At least {min} characters.',
  'field.weak':
    'Too weak: use at least {min} characters with three of lower case, upper case, digits and other characters, or a passphrase of at least {passphrase} characters.',

  'check.invalid': 'Kade does not accept this value.',
  'check.choice': 'Choose one of the offered values.',
  'check.whole_number': 'Enter a whole number.',
  'check.between': 'Enter a whole number from {min} to {max}.',
  'check.too_many': 'At most {max} items.',
  'check.format': 'This value does not have the expected form.',
  'check.absolute': 'Enter an absolute path, starting with /.',
  'check.http_url': 'Enter an address starting with http:// or https://, such as https://ntfy.sh/my-topic.',
  'check.emails': 'Enter one or more e-mail addresses such as name@example.org, separated by commas.',
  'check.timezone': 'Not a known time zone: use a name such as Europe/Amsterdam or UTC.',
  'check.registry_url': 'Enter a registry host such as ghcr.io, optionally with https://, a port and a path.',
  'check.listed_twice': '{value} is listed twice.',

  'name.invalid.app': '“{name}” is not a valid name: use lower-case letters, digits, _ and -, starting with a letter or digit, at most 63 characters.',
  'name.invalid.user':
    '“{name}” is not a valid user name: use lower-case letters, digits, . @ _ and -, starting with a letter or digit, at most 63 characters.',
  'name.invalid.network': '“{name}” is not a valid network name: use letters, digits, _ . and -, starting with a letter or digit, at most 63 characters.',
  'name.taken.user': 'An account named “{name}” exists already; choose another name.',
  'name.taken.network': 'A network named “{name}” exists already; choose another name.',

  'connect.checking': '{name} (checking its ports…)',
  'connect.not_published': '{name} publishes no port for {port} on this host (or is not running): switch on publishing in its settings.',
  'connect.loopback_only': '{name} publishes port {port} only on 127.0.0.1, which other apps cannot reach: publish it on all addresses.',
  'connect.none': 'No {app} is installed here. Install it first (with its port published), or type the address of one elsewhere, such as {example}.',
  'connect.address': 'Address used: {address}',

  'ports.not_checked': 'Not checked: enter a valid port first.',
  'ports.probe_missing':
    'Port {port} is assumed free: the port check needs the image {image} on the container engine, and it is missing. Get it with: docker pull {image}',

  'install.port_taken': 'Port {port} is in use on this host: choose another port, or confirm below that the app uses it anyway.',
  'install.port_taken_next':
    'Port {port} is in use on this host: take the next free port {next}, choose another, or confirm below that the app uses it anyway.',
  'install.port_taken_by': 'Port {port} is in use by {container}: choose another port, or confirm below that the app uses it anyway.',
  'install.port_taken_by_next':
    'Port {port} is in use by {container}: take the next free port {next}, choose another, or confirm below that the app uses it anyway.',
  'install.port_anyway': 'Use port {port} anyway (the app cannot start while something else holds it)',
  'install.outside_allow': 'Allow {path} for this app',
  'install.outside_allow_hint': 'As an admin you may give this app a folder outside its own; the install records your choice in the audit log.',
  'install.name_blocked': 'Choose another name first: “{name}” is installed already.',
  'install.name_blocked_invalid': 'Choose a valid name first.',
};

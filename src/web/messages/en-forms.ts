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

  'connect.checking': '{name} (checking its ports…)',
  'connect.not_published': '{name} publishes no port for {port} on this host (or is not running): switch on publishing in its settings.',
  'connect.loopback_only': '{name} publishes port {port} only on 127.0.0.1, which other apps cannot reach: publish it on all addresses.',
  'connect.none': 'No {app} is installed here. Install it first (with its port published), or type the address of one elsewhere, such as {example}.',
  'connect.address': 'Address used: {address}',

  'ports.not_checked': 'Not checked: enter a valid port first.',
  'ports.probe_missing':
    'Port {port} is assumed free: the port check needs the image {image} on the container engine, and it is missing. Get it with: docker pull {image}',

  'install.name_blocked': 'Choose another name first: “{name}” is installed already.',
  'install.name_blocked_invalid': 'Choose a valid name first.',
};

/** Values a user may type as a secret; each must reach the app exactly as typed. */
export const HOSTILE_VALUES = [
  'plain',
  'dollar $HOME and ${HOME} and $$ and ${X:-y} and $',
  "single ' quote",
  'double " quote',
  'back\\slash \\n not a newline',
  'ends in a backslash\\',
  'ends in \\"',
  'hash # not a comment',
  '  spaces around  ',
  'line\nbreak and\r\ncarriage return',
  'unicode ünïcødé ✓',
  '${KADE_LITERAL:-$}',
  '',
];

import { stringify } from 'yaml';

/**
 * One way to write compose YAML, so files written by Kade diff cleanly. Strings that YAML 1.1 readers (compose v1)
 * would take for booleans or numbers (`yes`, `on`, `22:22`) are quoted; YAML 1.2 readers read the file the same.
 */
export function stringifyCompose(doc: unknown): string {
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false, version: '1.1' });
}

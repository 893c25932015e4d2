import { stringify } from 'yaml';

/** One way to write compose YAML, so files written by Kade diff cleanly. */
export function stringifyCompose(doc: unknown): string {
  return stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
}

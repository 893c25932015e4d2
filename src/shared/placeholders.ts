/**
 * Placeholders a template may write in a field's `default`, `label` and `info` (docs/templates.md,
 * "Placeholders"): the form fills them while the name is typed, the server fills defaults the
 * same way. Pure: shared by the server and the forms.
 */
export interface PlaceholderContext {
  /** The name of the app being installed (as typed so far). */
  name: string;
  /** DATA_DIR: the folder under which every app owns `<name>`. */
  dataRoot: string;
}

export const PLACEHOLDERS = ['name', 'data_root', 'data_dir'] as const;

const PATTERN = /\{(name|data_root|data_dir)\}/g;

/** Whether a text holds one of the known placeholders. */
export const hasPlaceholder = (text: string): boolean => /\{(name|data_root|data_dir)\}/.test(text);

/** `{data_root}/{name}` without a doubled slash. */
export const appDataDir = (dataRoot: string, name: string): string => `${dataRoot.replace(/\/+$/, '')}/${name}`;

/** Fills `{name}`, `{data_root}` and `{data_dir}`; any other text in braces stays as it is. */
export function fillPlaceholders(text: string, ctx: PlaceholderContext): string {
  return text.replace(PATTERN, (_m, key: string) => (key === 'name' ? ctx.name : key === 'data_root' ? ctx.dataRoot : appDataDir(ctx.dataRoot, ctx.name)));
}

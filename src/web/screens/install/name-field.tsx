import { TextField } from '../../forms/field.tsx';
import { t } from '../../i18n.ts';

/** The name of the new app: its folder and compose project, checked while typing. */
export function NameField({ value, onInput, error, live }: { value: string; onInput: (v: string) => void; error: string | null; live: string | null }) {
  return (
    <TextField
      look="ifield"
      class="install-name"
      label={t('install.name')}
      name="name"
      mark
      required
      mono
      maxLength={63}
      value={value}
      onInput={onInput}
      hint={t('install.name_hint')}
      error={error ?? live}
    />
  );
}

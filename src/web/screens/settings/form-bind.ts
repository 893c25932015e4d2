import type { SettingsT } from '../../../shared/settings.ts';
import type { SecretKey } from '../../../shared/settings-keys.ts';
import type { FlagKey, SettingsForm, TextKey } from './settings-form.ts';

/** What every section gets: the form, the saved settings, and binders for its inputs. */
export interface SectionProps {
  form: SettingsForm;
  saved: SettingsT;
  text: (k: TextKey) => { name: string; value: string; onInput: (v: string) => void; error: string | null };
  flag: (k: FlagKey) => { name: string; checked: boolean; onChange: (v: boolean) => void };
  secret: (k: SecretKey) => {
    name: string;
    stored: boolean;
    value: string;
    onInput: (v: string) => void;
    remove: { checked: boolean; onChange: (v: boolean) => void };
  };
  setBase: (v: string) => void;
}

/** The binders of the sections' fields; `errorOf` says what is wrong with a setting now (or null). */
export function makeBinders(
  form: SettingsForm,
  saved: SettingsT,
  errorOf: (k: string) => string | null,
  set: (f: (prev: SettingsForm) => SettingsForm) => void,
) {
  return {
    text: (k: TextKey) => ({
      name: k,
      value: form.text[k],
      error: errorOf(k),
      onInput: (v: string) => set((f) => ({ ...f, text: { ...f.text, [k]: v } })),
    }),
    flag: (k: FlagKey) => ({ name: k, checked: form.flags[k], onChange: (v: boolean) => set((f) => ({ ...f, flags: { ...f.flags, [k]: v } })) }),
    secret: (k: SecretKey) => ({
      name: k,
      stored: saved[k].set,
      value: form.secrets[k].replace,
      onInput: (v: string) => set((f) => ({ ...f, secrets: { ...f.secrets, [k]: { ...f.secrets[k], replace: v } } })),
      remove: {
        checked: form.secrets[k].remove,
        onChange: (v: boolean) => set((f) => ({ ...f, secrets: { ...f.secrets, [k]: { replace: '', remove: v } } })),
      },
    }),
  };
}

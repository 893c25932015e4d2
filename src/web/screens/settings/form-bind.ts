import type { SettingsT } from '../../../shared/settings.ts';
import type { SecretKey } from '../../../shared/settings-keys.ts';
import type { FlagKey, SettingsForm, TextKey } from './settings-form.ts';

/** What every section gets: the form, the saved settings, and binders for its inputs. */
export interface SectionProps {
  form: SettingsForm;
  saved: SettingsT;
  text: (k: TextKey) => { name: string; value: string; onInput: (v: string) => void; invalid: boolean };
  flag: (k: FlagKey) => { name: string; checked: boolean; onChange: (v: boolean) => void };
  secret: (k: SecretKey) => { name: string; isSet: boolean; replace: string; remove: boolean; onReplace: (v: string) => void; onRemove: (v: boolean) => void };
  setBase: (v: string) => void;
}

export function makeBinders(form: SettingsForm, saved: SettingsT, bad: Set<string>, set: (f: (prev: SettingsForm) => SettingsForm) => void) {
  return {
    text: (k: TextKey) => ({
      name: k,
      value: form.text[k],
      invalid: bad.has(k),
      onInput: (v: string) => set((f) => ({ ...f, text: { ...f.text, [k]: v } })),
    }),
    flag: (k: FlagKey) => ({ name: k, checked: form.flags[k], onChange: (v: boolean) => set((f) => ({ ...f, flags: { ...f.flags, [k]: v } })) }),
    secret: (k: SecretKey) => ({
      name: k,
      isSet: saved[k].set,
      replace: form.secrets[k].replace,
      remove: form.secrets[k].remove,
      onReplace: (v: string) => set((f) => ({ ...f, secrets: { ...f.secrets, [k]: { ...f.secrets[k], replace: v } } })),
      onRemove: (v: boolean) => set((f) => ({ ...f, secrets: { ...f.secrets, [k]: { replace: '', remove: v } } })),
    }),
  };
}

import { useEffect, useState } from 'preact/hooks';
import type { SettingsT, SettingsUpdateT } from '../../../shared/settings.ts';
import { ApiError } from '../../api.ts';
import type { SaveState } from '../../components/save-result.tsx';
import { getSettings } from '../../components/settings-api.ts';
import { useAction } from '../../components/use-action.ts';
import { refusalMarks } from '../../forms/field-messages.ts';
import { schemaIssues, useSchemaIssues } from '../../forms/use-schema-issues.ts';
import { navigate } from '../../router.ts';
import { useAllowedDirsProblem } from './allowed-dirs.ts';
import { resetWizard, saveSettings } from './settings-api.ts';
import { type SettingsForm, settingsMessages, TEXT_KEYS, type TextKey, toForm, toUpdate } from './settings-form.ts';

const pathsPending = (s: SettingsT) => (['BASE_DIR', 'LIBRARY_DIR', 'DATA_DIR', 'BACKUP_DIR'] as const).some((k) => s[k] !== s.paths_in_use[k]);

/** The settings screen's state: the saved settings, the form, the checks while typing, the save and its outcome. */
export function useSettings() {
  const [saved, setSaved] = useState<SettingsT | null>(null);
  const [form, setForm] = useState<SettingsForm | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [other, setOther] = useState<unknown>(null);
  // The settings the schema refused at the last try, and the form as it was sent last.
  const [invalid, setInvalid] = useState<string[] | null>(null);
  const [sent, setSent] = useState<SettingsForm | null>(null);
  const issues = useSchemaIssues('settings', form ? toUpdate(form) : null);
  const dirsProblem = useAllowedDirsProblem(form?.text.ALLOWED_HOST_DIRS);
  const live: Record<string, string> = { ...(form ? settingsMessages(form, issues) : {}), ...(dirsProblem ? { ALLOWED_HOST_DIRS: dirsProblem } : {}) };
  const show = (s: SettingsT) => {
    setSaved(s);
    setForm(toForm(s));
  };

  const store = useAction(async (body: SettingsUpdateT) => {
    const s = await saveSettings(body);
    show(s);
    return { restart: pathsPending(s) };
  });

  useEffect(() => {
    getSettings().then(show).catch(setLoadError);
  }, []);

  const save = async (e: Event): Promise<void> => {
    e.preventDefault();
    if (!form || store.busy) return;
    setOther(null);
    const body = toUpdate(form);
    const keys = [...new Set([...Object.keys(settingsMessages(form, await schemaIssues('settings', body))), ...(dirsProblem ? ['ALLOWED_HOST_DIRS'] : [])])];
    setInvalid(keys.length > 0 ? keys : null);
    if (keys.length === 0) {
      setSent(form);
      await store.run(body);
    }
    // The outcome sits in the sticky bar; make sure it is on screen after the render.
    setTimeout(() => document.getElementById('settings-result')?.scrollIntoView({ block: 'nearest' }), 0);
  };
  const rerunWizard = async () => {
    try {
      await resetWizard();
      navigate('/wizard');
    } catch (error) {
      setOther(error);
    }
  };
  const onEdit = () => {
    store.reset();
    setInvalid(null);
    setOther(null);
  };
  const reload = () => void getSettings().then(show, setLoadError);
  return { saved, form, setForm, loadError, other, invalid, sent, live, store, save, rerunWizard, onEdit, reload };
}

/** Where the outcome of the last save stands: a refused setting at its field, the rest in the bar. */
export function saveOutcome(h: ReturnType<typeof useSettings>): { errorOf: (key: string) => string | null; result: SaveState } {
  const { store, live, sent, form, invalid, other } = h;
  // The server's word on a setting (a folder it cannot use, an allowed folder it refuses) stands at that setting
  // while it holds what was sent; the same refusal's summary stands in the bar.
  // A folder Kade cannot reach keeps its box: the reason with the `.env` line that fixes it.
  const unreachable = store.error instanceof ApiError && store.error.code === 'path_unreachable';
  const refused = unreachable
    ? { marks: {} as Record<string, string>, rest: store.error }
    : refusalMarks(store.error, { known: TEXT_KEYS, local: (k) => live[k] ?? null });
  const errorOf = (k: string): string | null =>
    live[k] ?? (sent && form && sent.text[k as TextKey] === form.text[k as TextKey] ? (refused.marks[k] ?? null) : null);
  const result: SaveState = store.busy
    ? { kind: 'saving' }
    : invalid
      ? { kind: 'invalid', keys: invalid }
      : other
        ? { kind: 'refused', error: other }
        : store.error && refused.rest === null
          ? { kind: 'invalid', keys: Object.keys(refused.marks) }
          : store.error
            ? { kind: 'refused', error: store.error }
            : store.result
              ? { kind: 'saved', restart: store.result.restart }
              : { kind: 'idle' };
  return { errorOf, result };
}

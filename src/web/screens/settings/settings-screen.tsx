import { useEffect, useState } from 'preact/hooks';
import type { SettingsT, SettingsUpdateT } from '../../../shared/settings.ts';
import { ApiError } from '../../api.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { SaveResult, type SaveState } from '../../components/save-result.tsx';
import { getSettings } from '../../components/settings-api.ts';
import { useAction } from '../../components/use-action.ts';
import { refusalMarks } from '../../forms/field-messages.ts';
import { schemaIssues, useSchemaIssues } from '../../forms/use-schema-issues.ts';
import { t } from '../../i18n.ts';
import { navigate } from '../../router.ts';
import { useAllowedDirsProblem } from './allowed-dirs.ts';
import { FoldersSection } from './folders-section.tsx';
import { makeBinders, type SectionProps } from './form-bind.ts';
import { BackupsSection, NetworksSection, NotifySection, RegistrySection, SecuritySection, SsoSection, TimeSection, UpdatesSection } from './sections.tsx';
import { SelfUpdatePanel } from './self-update-panel.tsx';
import { resetWizard, saveSettings } from './settings-api.ts';
import { type SettingsForm, settingsMessages, TEXT_KEYS, type TextKey, toForm, toUpdate, withBase } from './settings-form.ts';
import '../../components/settings-form.css';
import './settings.css';

/** A setting's name as the form shows it: the key, which is also what the `.env` and the API call it. */
const labelOf = (key: string) => key;

const pathsPending = (s: SettingsT) => (['BASE_DIR', 'LIBRARY_DIR', 'DATA_DIR', 'BACKUP_DIR'] as const).some((k) => s[k] !== s.paths_in_use[k]);

/** Kade's own settings in groups; a save shows the server's refusal as it is, never a success it did not get. */
export function SettingsScreen() {
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

  const store = useAction(async (body: SettingsUpdateT) => {
    const s = await saveSettings(body);
    setSaved(s);
    setForm(toForm(s));
    return { restart: pathsPending(s) };
  });

  useEffect(() => {
    getSettings()
      .then((s) => {
        setSaved(s);
        setForm(toForm(s));
      })
      .catch(setLoadError);
  }, []);

  // The outcome sits in the sticky bar; make sure it is on screen after the render.
  const focusResult = (): void => {
    setTimeout(() => document.getElementById('settings-result')?.scrollIntoView({ block: 'nearest' }), 0);
  };

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
    focusResult();
  };

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

  const rerunWizard = async () => {
    try {
      await resetWizard();
      navigate('/wizard');
    } catch (error) {
      setOther(error);
    }
  };

  return (
    <section class="page settings-page" aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {t('settings.title')}
        </h1>
      </div>
      <p class="muted page-intro">{t('settings.intro')}</p>
      <ErrorMessage error={loadError} />
      {!saved && !loadError && (
        <p class="muted" role="status">
          {t('settings.loading')}
        </p>
      )}
      {saved && form && (
        <SettingsBody
          saved={saved}
          form={form}
          setForm={setForm}
          errorOf={errorOf}
          result={result}
          onSave={save}
          onWizard={() => void rerunWizard()}
          onEdit={() => {
            store.reset();
            setInvalid(null);
            setOther(null);
          }}
          onMoved={() =>
            void getSettings().then((s) => {
              setSaved(s);
              setForm(toForm(s));
            }, setLoadError)
          }
        />
      )}
    </section>
  );
}

interface BodyProps {
  saved: SettingsT;
  form: SettingsForm;
  setForm: (f: (prev: SettingsForm | null) => SettingsForm | null) => void;
  errorOf: (key: string) => string | null;
  result: SaveState;
  onSave: (e: Event) => Promise<void>;
  onWizard: () => void;
  onEdit: () => void;
  /** After a path move: Kade works in the saved folders now. */
  onMoved: () => void;
}

function SettingsBody({ saved, form, setForm, errorOf, result, onSave, onWizard, onEdit, onMoved }: BodyProps) {
  const update = (f: (prev: SettingsForm) => SettingsForm) => {
    setForm((prev) => (prev ? f(prev) : prev));
    // The last outcome speaks of what was sent then; an edit makes it stale.
    if (result.kind !== 'saving' && result.kind !== 'idle') onEdit();
  };
  const props: SectionProps = { form, saved, ...makeBinders(form, saved, errorOf, update), setBase: (v) => update((f) => withBase(f, v)) };
  const saving = result.kind === 'saving';
  return (
    <>
      <form class="settings-form" onSubmit={(e) => void onSave(e)} aria-busy={saving} noValidate>
        <FoldersSection {...props} onMoved={onMoved} />
        <TimeSection {...props} />
        <SecuritySection {...props} />
        <NetworksSection {...props} />
        <BackupsSection {...props} />
        <UpdatesSection {...props} />
        <SelfUpdatePanel channel={saved.UPDATE_CHANNEL} />
        <NotifySection {...props} />
        <RegistrySection {...props} />
        <div class="save-bar">
          <SaveResult state={result} labelOf={labelOf} />
          <button type="submit" class="btn btn-primary" aria-disabled={saving}>
            {saving ? t('settings.saving') : t('settings.save')}
          </button>
        </div>
      </form>
      <SsoSection {...props} />
      <section class="card settings-section" aria-labelledby="settings-wizard">
        <h2 id="settings-wizard">{t('settings.wizard')}</h2>
        <p class="muted section-intro">{t('settings.wizard_text')}</p>
        <button type="button" class="btn" onClick={onWizard}>
          {t('settings.wizard_run')}
        </button>
      </section>
    </>
  );
}

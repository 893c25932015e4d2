import type { SettingsT } from '../../../shared/settings.ts';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { SaveResult, type SaveState } from '../../components/save-result.tsx';
import { t } from '../../i18n.ts';
import { FoldersSection } from './folders-section.tsx';
import { makeBinders, type SectionProps } from './form-bind.ts';
import { BackupsSection, NetworksSection, NotifySection, RegistrySection, SecuritySection, SsoSection, TimeSection, UpdatesSection } from './sections.tsx';
import { SelfUpdatePanel } from './self-update-panel.tsx';
import { type SettingsForm, withBase } from './settings-form.ts';
import { saveOutcome, useSettings } from './use-settings.ts';
import '../../components/settings-form.css';
import './settings.css';

/** A setting's name as the form shows it: the key, which is also what the `.env` and the API call it. */
const labelOf = (key: string) => key;

/** Kade's own settings in groups; a save shows the server's refusal as it is, never a success it did not get. */
export function SettingsScreen() {
  const h = useSettings();
  const { saved, form, loadError } = h;
  const { errorOf, result } = saveOutcome(h);
  return (
    <section class="page settings-page" aria-labelledby="page-title">
      <PageHead title={t('settings.title')} />
      <p class="muted page-intro">{t('settings.intro')}</p>
      <LoadState error={loadError} loading={!saved} text={t('settings.loading')} />
      {saved && form && (
        <SettingsBody
          saved={saved}
          form={form}
          setForm={h.setForm}
          errorOf={errorOf}
          result={result}
          onSave={h.save}
          onWizard={() => void h.rerunWizard()}
          onEdit={h.onEdit}
          onMoved={h.reload}
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

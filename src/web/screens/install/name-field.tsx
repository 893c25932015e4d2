import { useId } from 'preact/hooks';
import { t } from '../../i18n.ts';

/** The name of the new app: its folder and compose project, checked while typing. */
export function NameField({ value, onInput, error, live }: { value: string; onInput: (v: string) => void; error: string | null; live: string | null }) {
  const id = useId();
  const problem = error ?? live;
  return (
    <div class="ifield install-name">
      <div class="ifield-label">
        <label for={id}>{t('install.name')}</label>
        <span class="req" aria-hidden="true">
          *
        </span>
      </div>
      <input
        id={id}
        name="name"
        type="text"
        class="mono"
        required
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        autocomplete="off"
        autocapitalize="off"
        spellcheck={false}
        maxLength={63}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={`${id}-hint${problem ? ` ${id}-err` : ''}`}
      />
      <p class="hint" id={`${id}-hint`}>
        {t('install.name_hint')}
      </p>
      {problem && (
        <p class="field-error" id={`${id}-err`} aria-live="polite">
          {problem}
        </p>
      )}
    </div>
  );
}

import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { t } from '../../i18n.ts';

interface Base {
  label: string;
  name: string;
  hint?: string | undefined;
  invalid?: boolean | undefined;
}

function Hint({ id, hint }: { id: string; hint?: string | undefined }) {
  return hint ? (
    <p class="hint" id={id}>
      {hint}
    </p>
  ) : null;
}

/** A labelled one-line input; numbers use a numeric keyboard on phones but stay text so any input reaches the check. */
export function TextInput(
  p: Base & { value: string; onInput: (v: string) => void; numeric?: boolean; list?: string; placeholder?: string; autocomplete?: string },
) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type="text"
        inputMode={p.numeric ? 'decimal' : undefined}
        value={p.value}
        onInput={(e) => p.onInput(e.currentTarget.value)}
        list={p.list}
        placeholder={p.placeholder}
        autocomplete={p.autocomplete ?? 'off'}
        autocapitalize="off"
        spellcheck={false}
        aria-invalid={p.invalid ? 'true' : undefined}
        aria-describedby={p.hint ? `${id}-hint` : undefined}
        class={p.numeric ? 'narrow' : undefined}
      />
      <Hint id={`${id}-hint`} hint={p.hint} />
    </div>
  );
}

/** Several lines, one value each (a list of folders). */
export function TextArea(p: Base & { value: string; onInput: (v: string) => void; rows?: number }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <textarea
        id={id}
        name={p.name}
        rows={p.rows ?? 3}
        value={p.value}
        onInput={(e) => p.onInput(e.currentTarget.value)}
        autocapitalize="off"
        spellcheck={false}
        class="mono"
        aria-invalid={p.invalid ? 'true' : undefined}
        aria-describedby={p.hint ? `${id}-hint` : undefined}
      />
      <Hint id={`${id}-hint`} hint={p.hint} />
    </div>
  );
}

export function Checkbox(p: Base & { checked: boolean; onChange: (v: boolean) => void }) {
  const id = useId();
  return (
    <div class="field field-check">
      <input
        id={id}
        name={p.name}
        type="checkbox"
        checked={p.checked}
        onChange={(e) => p.onChange(e.currentTarget.checked)}
        aria-describedby={p.hint ? `${id}-hint` : undefined}
      />
      <label for={id}>{p.label}</label>
      <Hint id={`${id}-hint`} hint={p.hint} />
    </div>
  );
}

export function Select(p: Base & { value: string; onChange: (v: string) => void; options: { value: string; label: string }[] }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <select
        id={id}
        name={p.name}
        value={p.value}
        onChange={(e) => p.onChange(e.currentTarget.value)}
        aria-invalid={p.invalid ? 'true' : undefined}
        aria-describedby={p.hint ? `${id}-hint` : undefined}
      >
        {p.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Hint id={`${id}-hint`} hint={p.hint} />
    </div>
  );
}

/** A write-only value: whether one is stored, a field to replace it, a mark to remove it. Never the value itself. */
export function SecretInput(p: Base & { isSet: boolean; replace: string; remove: boolean; onReplace: (v: string) => void; onRemove: (v: boolean) => void }) {
  const id = useId();
  return (
    <fieldset class="secret">
      <legend>
        {p.label} <span class={p.isSet ? 'pill pill-set' : 'pill'}>{p.isSet ? t('secret.set') : t('secret.not_set')}</span>
      </legend>
      <div class="field">
        <label for={id}>{t('secret.replace')}</label>
        <input
          id={id}
          name={p.name}
          type="password"
          value={p.replace}
          onInput={(e) => p.onReplace(e.currentTarget.value)}
          autocomplete="new-password"
          disabled={p.remove}
          aria-invalid={p.invalid ? 'true' : undefined}
          aria-describedby={`${id}-hint`}
        />
        <p class="hint" id={`${id}-hint`}>
          {t('secret.replace_hint')}
        </p>
      </div>
      {p.isSet && <Checkbox label={t('secret.remove')} name={`${p.name}-remove`} checked={p.remove} onChange={p.onRemove} />}
    </fieldset>
  );
}

/** One group of the settings form. */
export function Section({ id, title, intro, children }: { id: string; title: string; intro?: string; children: ComponentChildren }) {
  return (
    <section class="card settings-section" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {intro && <p class="muted section-intro">{intro}</p>}
      <div class="settings-grid">{children}</div>
    </section>
  );
}

import { useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { type A11y, CheckboxField, FieldFrame, type FieldProps } from './field.tsx';

const quiet = { autocomplete: 'new-password', autocapitalize: 'off' as const, spellcheck: false, class: 'mono' };

/** A hidden value with show/hide and, when `generate` is given, a button that makes one up. */
export function SecretInput({
  a11y,
  value,
  onInput,
  label,
  generate,
}: {
  a11y: A11y;
  value: string;
  onInput: (v: string) => void;
  label: string;
  generate?: (() => string) | undefined;
}) {
  const [shown, setShown] = useState(false);
  const common = { ...a11y, ...quiet, value, onInput: (e: { currentTarget: HTMLInputElement }) => onInput(e.currentTarget.value) };
  return (
    <div class="ifield-row">
      {shown ? <input type="text" {...common} /> : <input type="password" {...common} />}
      <button
        type="button"
        class="btn btn-small"
        aria-pressed={shown}
        aria-label={t(shown ? 'install.hide_label' : 'install.show_label', { label })}
        onClick={() => setShown(!shown)}
      >
        {t(shown ? 'install.hide' : 'install.show')}
      </button>
      {generate && (
        <button type="button" class="btn btn-small" aria-label={t('install.generate_label', { label })} onClick={() => onInput(generate())}>
          {t('install.generate')}
        </button>
      )}
    </div>
  );
}

/** A secret typed (or made up) in the form: shown on request, generated where the app allows a made-up value. */
export function SecretField(p: FieldProps & { value: string; onInput: (v: string) => void; generate?: (() => string) | undefined }) {
  return <FieldFrame {...p}>{(a) => <SecretInput a11y={a} value={p.value} onInput={p.onInput} label={p.label} generate={p.generate} />}</FieldFrame>;
}

interface StoredProps {
  label: string;
  name: string;
  hint?: string | undefined;
  error?: string | null | undefined;
  /** The server keeps a value (it never sends it). */
  stored: boolean;
  /** What is typed now: empty keeps the stored value. */
  value: string;
  onInput: (v: string) => void;
  /** Offers to remove the stored value: the field then sits in a group with its state as the title. */
  remove?: { checked: boolean; onChange: (v: boolean) => void } | undefined;
}

function StateMark({ stored, legend }: { stored: boolean; legend: boolean }) {
  const text = legend ? t(stored ? 'secret.set' : 'secret.not_set') : t(stored ? 'secret.stored' : 'secret.none');
  return (
    <span class={stored ? 'pill pill-set' : 'pill'} data-secret-state={stored ? 'stored' : 'none'}>
      {text}
    </span>
  );
}

/**
 * A write-only value (a token, a password Kade keeps): whether one is stored, and a field that replaces it;
 * never the value itself.
 */
export function StoredSecretField(p: StoredProps) {
  if (!p.remove) {
    const hint = [p.hint, p.stored ? t('secret.keep') : ''].filter(Boolean).join(' ');
    return (
      <FieldFrame {...p} hint={hint} labelExtra={<StateMark stored={p.stored} legend={false} />}>
        {(a) => <input type="password" {...a} autocomplete="new-password" value={p.value} onInput={(e) => p.onInput(e.currentTarget.value)} />}
      </FieldFrame>
    );
  }
  const { remove } = p;
  return (
    <fieldset class="secret">
      <legend>
        {p.label} <StateMark stored={p.stored} legend />
      </legend>
      <FieldFrame label={t('secret.replace')} name={p.name} hint={t('secret.replace_hint')} error={p.error}>
        {(a) => (
          <input
            type="password"
            {...a}
            value={p.value}
            onInput={(e) => p.onInput(e.currentTarget.value)}
            autocomplete="new-password"
            disabled={remove.checked}
          />
        )}
      </FieldFrame>
      {p.stored && <CheckboxField label={t('secret.remove')} name={`${p.name}-remove`} checked={remove.checked} onChange={remove.onChange} />}
    </fieldset>
  );
}

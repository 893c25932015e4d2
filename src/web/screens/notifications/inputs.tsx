import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { t } from '../../i18n.ts';

interface Base {
  label: string;
  name: string;
  hint?: string | undefined;
  /** The server's word on this field, shown under it; the field is marked invalid while it is set. */
  problem?: string | null | undefined;
}

function Below({ id, hint, problem }: { id: string; hint?: string | undefined; problem?: string | null | undefined }) {
  return (
    <>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {problem && (
        <p class="field-error" id={`${id}-err`}>
          {problem}
        </p>
      )}
    </>
  );
}

const describedBy = (id: string, p: Base) => [p.hint ? `${id}-hint` : '', p.problem ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;

/** A labelled one-line input with its hint and, after a refused save, what the server said about it. */
export function TextField(p: Base & { value: string; onInput: (v: string) => void; inputMode?: 'numeric' | 'email' | 'url'; placeholder?: string }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type="text"
        inputMode={p.inputMode}
        value={p.value}
        placeholder={p.placeholder}
        onInput={(e) => p.onInput(e.currentTarget.value)}
        autocomplete="off"
        autocapitalize="off"
        spellcheck={false}
        aria-invalid={p.problem ? 'true' : undefined}
        aria-describedby={describedBy(id, p)}
      />
      <Below id={id} hint={p.hint} problem={p.problem} />
    </div>
  );
}

/** A write-only secret: whether one is stored, and a field that replaces it; empty keeps the stored one. */
export function SecretField(p: Base & { value: string; stored: boolean; onInput: (v: string) => void }) {
  const id = useId();
  const hint = [p.hint, p.stored ? t('notify.secret_keep') : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>
        {p.label}{' '}
        <span class={p.stored ? 'nfy-pill nfy-pill-set' : 'nfy-pill'} data-secret-state={p.stored ? 'stored' : 'none'}>
          {p.stored ? t('notify.secret_stored') : t('notify.secret_none')}
        </span>
      </label>
      <input
        id={id}
        name={p.name}
        type="password"
        value={p.value}
        onInput={(e) => p.onInput(e.currentTarget.value)}
        autocomplete="new-password"
        aria-invalid={p.problem ? 'true' : undefined}
        aria-describedby={describedBy(id, { ...p, hint })}
      />
      <Below id={id} hint={hint} problem={p.problem} />
    </div>
  );
}

export function SelectField(p: Base & { value: string; onChange: (v: string) => void; options: { value: string; label: string }[] }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <select
        id={id}
        name={p.name}
        value={p.value}
        onChange={(e) => p.onChange(e.currentTarget.value)}
        aria-invalid={p.problem ? 'true' : undefined}
        aria-describedby={describedBy(id, p)}
      >
        {p.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <Below id={id} hint={p.hint} problem={p.problem} />
    </div>
  );
}

/** A group of fields in as many columns as fit. */
export function FieldGrid({ children }: { children: ComponentChildren }) {
  return <div class="nfy-fields">{children}</div>;
}

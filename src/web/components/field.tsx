import type { TargetedInputEvent } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  type?: 'text' | 'password';
  autocomplete: string;
  hint?: string;
  invalid?: boolean;
  /** The id of an error message that describes this field when it is invalid. */
  errorId?: string;
  required?: boolean;
}

/** A text input with a visible label and an optional hint, both tied to it for screen readers. */
export function Field(p: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const describedBy = [p.hint ? hintId : '', p.invalid && p.errorId ? p.errorId : ''].filter(Boolean).join(' ');
  const common = {
    id,
    name: p.name,
    value: p.value,
    onInput: (e: TargetedInputEvent<HTMLInputElement>) => p.onInput(e.currentTarget.value),
    autocomplete: p.autocomplete,
    autocapitalize: 'off' as const,
    spellcheck: false,
    required: p.required ?? true,
    'aria-invalid': p.invalid ? ('true' as const) : undefined,
    'aria-describedby': describedBy || undefined,
  };
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      {/* Two literal branches: Preact 11 types the input attributes per `type`. */}
      {p.type === 'password' ? <input type="password" {...common} /> : <input type="text" {...common} />}
      {p.hint && (
        <p class="hint" id={hintId}>
          {p.hint}
        </p>
      )}
    </div>
  );
}

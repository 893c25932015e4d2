import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import './field.css';

/**
 * The field kit: every form of the interface (install, configure, settings, notifications, users, setup,
 * networks, backups, …) builds its fields from these, so a label, a hint and what is wrong with a value
 * look and read the same everywhere. A message under a field is always Kade's own, in the user's language
 * (`field-messages.ts`); the form decides when it shows (while typing, after a first try, after a refusal).
 */
export interface FieldProps {
  label: string;
  name: string;
  hint?: ComponentChildren;
  /** What is wrong with the value, shown under the field, which is then marked invalid. */
  error?: string | null | undefined;
  /** Marked invalid while the reason stands elsewhere: `errorId` names that message. */
  invalid?: boolean | undefined;
  errorId?: string | undefined;
  required?: boolean | undefined;
  /** The required mark (*) after the label, as the install and configure forms show it. */
  mark?: boolean | undefined;
  /** The template field's id (`data-field`), by which the template forms find a field. */
  field?: string | undefined;
  /** 'field' (settings, users, …) or 'ifield' (the template forms: label row with the mark). */
  look?: 'field' | 'ifield';
  class?: string | undefined;
  /** After the hint and the error: a live check's answer, a confirmation the field asks for. */
  footer?: ComponentChildren;
}

/** The attributes every control of a field carries: its id, name, whether it is invalid and what describes it. */
export interface A11y {
  id: string;
  name: string;
  'aria-invalid': 'true' | undefined;
  'aria-describedby': string | undefined;
  required: boolean;
}

const join = (...ids: (string | false | undefined)[]): string | undefined => ids.filter(Boolean).join(' ') || undefined;

interface FrameProps extends FieldProps {
  /** The control, given the attributes it must carry. */
  children: (a: A11y) => ComponentChildren;
  /** Under the control, before the hint (a port's check, a list of choices). */
  below?: ComponentChildren;
  /** Inside the label after its text (a secret's stored/none state). */
  labelExtra?: ComponentChildren;
  /** More ids describing the control (a live check's line). */
  describedBy?: string | undefined;
  /** The control is marked invalid for a reason of its own (a port in use) without a message here. */
  flagged?: boolean | undefined;
}

/** The hint and the message under a control, with the ids (`<id>-hint`, `<id>-err`) the control is described by. */
function Below({ id, hint, error }: { id: string; hint?: ComponentChildren; error?: string | null | undefined }) {
  return (
    <>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={`${id}-err`} aria-live="polite">
          {error}
        </p>
      )}
    </>
  );
}

/** Label, control, hint and message, tied together for screen readers. */
export function FieldFrame(p: FrameProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errId = `${id}-err`;
  const hasHint = p.hint !== undefined && p.hint !== null && p.hint !== '' && p.hint !== false;
  const bad = Boolean(p.error) || p.invalid === true || p.flagged === true;
  const a11y: A11y = {
    id,
    name: p.name,
    'aria-invalid': bad ? 'true' : undefined,
    'aria-describedby': join(hasHint && hintId, p.error ? errId : p.invalid && p.errorId, p.describedBy),
    required: p.required ?? false,
  };
  const ifield = p.look === 'ifield';
  const label = (
    <label for={id}>
      {p.label}
      {p.labelExtra && <> {p.labelExtra}</>}
    </label>
  );
  return (
    <div class={join(ifield ? 'ifield' : 'field', p.class)} data-field={p.field}>
      {ifield ? (
        <div class="ifield-label">
          {label}
          {/* Outside the label, so the accessible name is the label alone; the control carries `required`. */}
          {p.mark && (
            <span class="req" aria-hidden="true">
              *
            </span>
          )}
        </div>
      ) : (
        label
      )}
      {p.children(a11y)}
      {p.below}
      <Below id={id} hint={hasHint ? p.hint : null} error={p.error} />
      {p.footer}
    </div>
  );
}

export interface TextProps extends FieldProps {
  value: string;
  onInput: (v: string) => void;
  /** password hides what is typed; email, url and number bring the fitting keyboard on phones. */
  type?: 'text' | 'password' | 'email' | 'url' | 'number';
  /** A numeric keyboard while the input stays text, so anything typed reaches the check. */
  inputMode?: 'numeric' | 'decimal' | 'email' | 'url' | undefined;
  autocomplete?: string | undefined;
  placeholder?: string | undefined;
  list?: string | undefined;
  mono?: boolean | undefined;
  narrow?: boolean | undefined;
  maxLength?: number | undefined;
  disabled?: boolean | undefined;
}

const quiet = { autocapitalize: 'off' as const, spellcheck: false };

/** A one-line input; one literal branch per type, since Preact types the attributes per `type`. */
export function TextInput({ a11y, p }: { a11y: A11y; p: Omit<TextProps, keyof FieldProps> }) {
  const attrs = {
    ...a11y,
    ...quiet,
    value: p.value,
    onInput: (e: { currentTarget: HTMLInputElement }) => p.onInput(e.currentTarget.value),
    autocomplete: p.autocomplete ?? 'off',
    placeholder: p.placeholder,
    list: p.list,
    maxLength: p.maxLength,
    disabled: p.disabled,
    inputMode: p.inputMode,
    class: join(p.mono && 'mono', p.narrow && 'narrow'),
  };
  switch (p.type) {
    case 'password':
      return <input type="password" {...attrs} />;
    case 'email':
      return <input type="email" {...attrs} />;
    case 'url':
      return <input type="url" {...attrs} />;
    case 'number':
      return <input type="number" {...attrs} />;
    default:
      return <input type="text" {...attrs} />;
  }
}

/** A labelled one-line input. */
export function TextField(p: TextProps) {
  return <FieldFrame {...p}>{(a) => <TextInput a11y={a} p={p} />}</FieldFrame>;
}

/** Several lines, one value each (a list of folders). */
export function TextAreaField(p: FieldProps & { value: string; onInput: (v: string) => void; rows?: number }) {
  return (
    <FieldFrame {...p}>
      {(a) => <textarea {...a} {...quiet} rows={p.rows ?? 3} class="mono" value={p.value} onInput={(e) => p.onInput(e.currentTarget.value)} />}
    </FieldFrame>
  );
}

export interface Option {
  value: string;
  label: string;
  disabled?: boolean;
}

/** A choice from a list; `first` is an option before the list (none chosen, or a prompt). */
export function SelectField(p: FieldProps & { value: string; onChange: (v: string) => void; options: readonly Option[]; first?: Option | undefined }) {
  return (
    <FieldFrame {...p}>
      {(a) => (
        <select {...a} value={p.value} onChange={(e) => p.onChange(e.currentTarget.value)}>
          {[...(p.first ? [p.first] : []), ...p.options].map((o) => (
            <option key={o.value} value={o.value} disabled={o.disabled}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}

/** A box to tick, its label beside it and the hint below. */
export function CheckboxField(p: Omit<FieldProps, 'look'> & { checked: boolean; onChange: (v: boolean) => void; disabled?: boolean }) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div class={join('field field-check', p.class)}>
      <input
        id={id}
        name={p.name}
        type="checkbox"
        checked={p.checked}
        disabled={p.disabled}
        onChange={(e) => p.onChange(e.currentTarget.checked)}
        aria-describedby={p.hint ? hintId : undefined}
      />
      <label for={id}>{p.label}</label>
      <Below id={id} hint={p.hint} />
    </div>
  );
}

/** An on/off switch (the template forms' yes/no fields). */
export function SwitchField(p: FieldProps & { checked: boolean; onChange: (v: boolean) => void }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errId = `${id}-err`;
  return (
    <div class={join('ifield ifield-switch', p.class)} data-field={p.field}>
      <label class="switch" for={id}>
        <input
          id={id}
          name={p.name}
          type="checkbox"
          role="switch"
          checked={p.checked}
          aria-checked={p.checked}
          aria-invalid={p.error ? 'true' : undefined}
          aria-describedby={join(p.hint ? hintId : undefined, p.error ? errId : undefined)}
          onChange={(e) => p.onChange(e.currentTarget.checked)}
        />
        <span class="switch-track" aria-hidden="true" />
        <span class="switch-label">{p.label}</span>
      </label>
      <Below id={id} hint={p.hint} error={p.error} />
    </div>
  );
}

import type { ComponentChildren } from 'preact';

interface Props {
  id: string;
  label: string;
  name: string;
  value: string;
  placeholder: string;
  error: string | null;
  onInput: (v: string) => void;
  /** A suggestions list for the input. */
  list?: string;
  /** What else describes the input (a live check below it). */
  describedBy?: string;
  /** Beside the input, in one row: a remove button. */
  beside?: ComponentChildren;
  /** Under the input, above its mark: a live check. */
  below?: ComponentChildren;
}

/** A host path of an app's extras (a folder, a device): a plain monospace input with its label and its mark. */
export function ExtraField(p: Props) {
  const errId = `${p.id}-e`;
  const describedBy = [p.describedBy, p.error ? errId : undefined].filter(Boolean).join(' ');
  const input = (
    <input
      id={p.id}
      name={p.name}
      type="text"
      class="mono"
      list={p.list}
      value={p.value}
      placeholder={p.placeholder}
      autocomplete="off"
      autocapitalize="off"
      spellcheck={false}
      aria-invalid={p.error ? 'true' : undefined}
      aria-describedby={describedBy || undefined}
      onInput={(e) => p.onInput(e.currentTarget.value)}
    />
  );
  return (
    <div class="ifield">
      <label for={p.id}>{p.label}</label>
      {p.beside ? (
        <div class="ifield-row">
          {input}
          {p.beside}
        </div>
      ) : (
        input
      )}
      {p.below}
      {p.error && (
        <p class="field-error" id={errId}>
          {p.error}
        </p>
      )}
    </div>
  );
}

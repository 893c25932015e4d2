import type { ComponentChildren } from 'preact';
import { useId, useState } from 'preact/hooks';
import type { FieldValue, TemplateFieldT } from '../../shared/template.ts';
import { getLang, t } from '../i18n.ts';
import { ConnectInput, type Instance } from './connect-field.tsx';
import { fieldProblem } from './field-problem.ts';
import { randomSecret, textIn } from './form-text.ts';
import { PortInput } from './port-field.tsx';

export interface FieldProps {
  field: TemplateFieldT;
  value: FieldValue | undefined;
  onChange: (v: FieldValue) => void;
  /** Why the field is refused (required and empty, or named by the server), or null. */
  error: string | null;
  /** Installed instances per app id, for connect fields. */
  instances: (app: string) => Instance[];
  /** Containers of the app being reconfigured: a port one of them holds is its own, not taken. */
  ownContainers?: readonly string[] | undefined;
  /** Fills the placeholders ({name}, …) of the label, info and default (shared/placeholders.ts). */
  fill?: ((text: string) => string) | undefined;
}

/** A made-up value is offered on secret password fields unless the template says `generate: false`. */
export const offersGenerate = (f: TemplateFieldT): boolean => f.generate === true || (f.generate === undefined && f.secret && f.type === 'password');

/** What the hint line under a field says: the info text with the default next to it. */
function hintText(f: TemplateFieldT, fill: (s: string) => string): string {
  const info = fill(textIn(f.info, getLang()));
  const showDefault = f.default !== undefined && f.default !== '' && !f.secret;
  const def = showDefault
    ? t('install.default', { value: f.type === 'boolean' ? t(f.default === true ? 'install.on' : 'install.off') : fill(String(f.default)) })
    : '';
  return [info, def].filter(Boolean).join(' ');
}

/** A labelled control of the install form, chosen by the field's type. */
export function TemplateField(p: FieldProps) {
  const id = useId();
  const f = p.field;
  const fill = p.fill ?? ((s: string) => s);
  const label = fill(textIn(f.label, getLang()));
  const hint = hintText(f, fill);
  // The server's word or the empty-field mark first; else what the shared rules say while typing.
  const error = p.error ?? fieldProblem(f, p.value);
  const hintId = `${id}-hint`;
  const errId = `${id}-err`;
  const describedBy = [hint ? hintId : '', error ? errId : ''].filter(Boolean).join(' ') || undefined;
  const a11y = {
    id,
    name: f.id,
    'aria-invalid': error ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
    required: f.required,
  };
  const str = p.value === undefined ? '' : String(p.value);

  if (f.type === 'boolean') {
    return (
      <div class="ifield ifield-switch" data-field={f.id}>
        <label class="switch" for={id}>
          <input
            type="checkbox"
            role="switch"
            {...a11y}
            required={false}
            checked={p.value === true}
            aria-checked={p.value === true}
            onChange={(e) => p.onChange(e.currentTarget.checked)}
          />
          <span class="switch-track" aria-hidden="true" />
          <span class="switch-label">{label}</span>
        </label>
        <Below hint={hint} hintId={hintId} error={error} errId={errId} />
      </div>
    );
  }

  let control: ComponentChildren;
  if (f.connect) {
    control = <ConnectInput a11y={a11y} connect={f.connect} value={str} onChange={p.onChange} instances={p.instances(f.connect.app)} label={label} />;
  } else if (f.type === 'port') {
    control = <PortInput a11y={a11y} value={str} onChange={p.onChange} label={label} own={p.ownContainers} />;
  } else if (f.type === 'password' || f.secret) {
    control = <SecretInput a11y={a11y} field={f} value={str} onChange={p.onChange} label={label} />;
  } else if (f.type === 'select') {
    control = (
      <select {...a11y} value={str} onChange={(e) => p.onChange(e.currentTarget.value)}>
        {!f.required && <option value="">{t('install.choose_none')}</option>}
        {f.required && str === '' && (
          <option value="" disabled>
            {t('install.choose')}
          </option>
        )}
        {(f.options ?? []).map((o) => (
          <option key={o.value} value={o.value}>
            {textIn(o.label, getLang())}
          </option>
        ))}
      </select>
    );
  } else {
    control = <PlainInput a11y={a11y} type={f.type} value={str} onChange={p.onChange} />;
  }

  return (
    <div class="ifield" data-field={f.id}>
      <div class="ifield-label">
        <label for={id}>{label}</label>
        {/* Outside the label, so the accessible name is the label alone; the input carries `required`. */}
        {f.required && (
          <span class="req" aria-hidden="true">
            *
          </span>
        )}
      </div>
      {control}
      <Below hint={hint} hintId={hintId} error={error} errId={errId} />
    </div>
  );
}

function Below({ hint, hintId, error, errId }: { hint: string; hintId: string; error: string | null; errId: string }) {
  return (
    <>
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errId}>
          {error}
        </p>
      )}
    </>
  );
}

export interface A11y {
  id: string;
  name: string;
  'aria-invalid': 'true' | undefined;
  'aria-describedby': string | undefined;
  required: boolean;
}

const plain = { autocomplete: 'off', autocapitalize: 'off' as const, spellcheck: false };

/** Text-like inputs; one literal branch per type, since Preact types the attributes per `type`. */
function PlainInput({ a11y, type, value, onChange }: { a11y: A11y; type: TemplateFieldT['type']; value: string; onChange: (v: string) => void }) {
  const onInput = (e: { currentTarget: HTMLInputElement }) => onChange(e.currentTarget.value);
  switch (type) {
    case 'email':
      return <input type="email" {...a11y} {...plain} autocomplete="email" value={value} onInput={onInput} />;
    case 'url':
      return <input type="url" {...a11y} {...plain} class="mono" value={value} onInput={onInput} />;
    case 'number':
      return <input type="number" {...a11y} {...plain} class="narrow" value={value} onInput={onInput} />;
    case 'path':
      return <input type="text" {...a11y} {...plain} class="mono" value={value} onInput={onInput} />;
    default:
      return <input type="text" {...a11y} {...plain} value={value} onInput={onInput} />;
  }
}

/** A hidden value with show/hide, and a generate button where the template allows a made-up value. */
function SecretInput({
  a11y,
  field,
  value,
  onChange,
  label,
}: {
  a11y: A11y;
  field: TemplateFieldT;
  value: string;
  onChange: (v: string) => void;
  label: string;
}) {
  const [shown, setShown] = useState(false);
  const onInput = (e: { currentTarget: HTMLInputElement }) => onChange(e.currentTarget.value);
  const common = { ...a11y, ...plain, class: 'mono', value, onInput, autocomplete: 'new-password' };
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
      {offersGenerate(field) && (
        <button type="button" class="btn btn-small" aria-label={t('install.generate_label', { label })} onClick={() => onChange(randomSecret(field))}>
          {t('install.generate')}
        </button>
      )}
    </div>
  );
}

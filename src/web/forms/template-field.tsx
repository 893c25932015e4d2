import type { ComponentChildren } from 'preact';
import type { FieldValue, TemplateFieldT } from '../../shared/template.ts';
import { getLang, t } from '../i18n.ts';
import { ConnectInput, type Instance } from './connect-field.tsx';
import { FieldFrame, SelectField, SwitchField, TextField, type TextProps } from './field.tsx';
import { fieldProblem } from './field-problem.ts';
import { randomSecret, textIn } from './form-text.ts';
import { PortField, type PortTaken } from './port-field.tsx';
import { SecretField } from './secret-field.tsx';

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
  /** Under the field: what the form asks about the value beyond its rules (a port in use, a host folder to allow). */
  footer?: ComponentChildren;
  /** The port check's answer, for a form that stops at a port in use (port-field.tsx). */
  onPortCheck?: ((taken: PortTaken | null) => void) | undefined;
}

/** A made-up value is offered on secret password fields unless the template says `generate: false`. */
export const offersGenerate = (f: TemplateFieldT): boolean => f.generate === true || (f.generate === undefined && f.secret && f.type === 'password');

/** A default as the user sees the value: on/off for a switch, the option's label for a choice, placeholders filled. */
function defaultText(f: TemplateFieldT, fill: (s: string) => string): string {
  if (f.type === 'boolean') return t(f.default === true ? 'install.on' : 'install.off');
  const option = f.type === 'select' ? f.options?.find((o) => o.value === String(f.default)) : undefined;
  return option ? textIn(option.label, getLang()) : fill(String(f.default));
}

/** What the hint line under a field says: the info text with the default next to it. */
function hintText(f: TemplateFieldT, fill: (s: string) => string): string {
  const info = fill(textIn(f.info, getLang()));
  const showDefault = f.default !== undefined && f.default !== '' && !f.secret;
  const def = showDefault ? t('install.default', { value: defaultText(f, fill) }) : '';
  return [info, def].filter(Boolean).join(' ');
}

/** A labelled control of the install form, chosen by the field's type. */
export function TemplateField(p: FieldProps) {
  const f = p.field;
  const fill = p.fill ?? ((s: string) => s);
  const label = fill(textIn(f.label, getLang()));
  const str = p.value === undefined ? '' : String(p.value);
  const common = {
    label,
    name: f.id,
    hint: hintText(f, fill),
    // The server's word or the empty-field mark first; else what the shared rules say while typing.
    error: p.error ?? fieldProblem(f, p.value),
    required: f.required,
    mark: f.required,
    field: f.id,
    look: 'ifield' as const,
    footer: p.footer,
  };
  if (f.type === 'boolean') return <SwitchField {...common} checked={p.value === true} onChange={p.onChange} />;
  if (f.connect) {
    const connect = f.connect;
    return (
      <FieldFrame {...common}>
        {(a) => <ConnectInput a11y={a} connect={connect} value={str} onChange={p.onChange} instances={p.instances(connect.app)} label={label} />}
      </FieldFrame>
    );
  }
  if (f.type === 'port') return <PortField {...common} value={str} onChange={p.onChange} own={p.ownContainers} onCheck={p.onPortCheck} />;
  if (f.type === 'password' || f.secret) {
    return <SecretField {...common} value={str} onInput={p.onChange} generate={offersGenerate(f) ? () => randomSecret(f) : undefined} />;
  }
  if (f.type === 'select') {
    const options = (f.options ?? []).map((o) => ({ value: o.value, label: textIn(o.label, getLang()) }));
    // Optional: "none" is a choice; required and still empty: a prompt that cannot be chosen back.
    const first = !f.required
      ? { value: '', label: t('install.choose_none') }
      : str === ''
        ? { value: '', label: t('install.choose'), disabled: true }
        : undefined;
    return <SelectField {...common} value={str} onChange={p.onChange} options={options} first={first} />;
  }
  return <TextField {...common} value={str} onInput={p.onChange} {...TEXT_LOOK[f.type]} />;
}

/** How a text-like template field is typed: the keyboard, the font, the width. */
const TEXT_LOOK: Partial<Record<TemplateFieldT['type'], Pick<TextProps, 'type' | 'mono' | 'narrow' | 'autocomplete'>>> = {
  email: { type: 'email', autocomplete: 'email' },
  url: { type: 'url', mono: true },
  number: { type: 'number', narrow: true },
  path: { mono: true },
};

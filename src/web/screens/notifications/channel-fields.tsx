import type { ComponentChildren } from 'preact';
import { SelectField, TextField } from '../../forms/field.tsx';
import { StoredSecretField } from '../../forms/secret-field.tsx';
import { t } from '../../i18n.ts';
import type { SmtpSecurity, WebhookFormat } from './notifications-api.ts';
import { type ChannelDraft, FORMATS, SECURITIES, type SmtpDraft, withSecurity } from './notifications-model.ts';

export interface FieldsProps {
  channel: ChannelDraft;
  onChange: (patch: Partial<ChannelDraft>) => void;
  /** What is wrong with a field of this channel (`url`, `smtp.host`): the shared rules while typing, or the server's word; null when nothing. */
  problem: (field: string) => string | null;
}

/** The fields of a channel's kind: a topic or webhook address with its token, or the SMTP settings. */
export function ChannelFields(p: FieldsProps) {
  const c = p.channel;
  return (
    <FieldGrid>
      <TextField
        label={t('notify.field.name')}
        name="name"
        hint={t('notify.field.name_hint')}
        value={c.name}
        onInput={(name) => p.onChange({ name })}
        error={p.problem('name')}
      />
      {c.kind === 'email' ? <SmtpFields {...p} /> : <UrlFields {...p} kind={c.kind} />}
    </FieldGrid>
  );
}

function UrlFields({ channel: c, onChange, problem, kind }: FieldsProps & { kind: 'push' | 'webhook' }) {
  return (
    <>
      <TextField
        label={t(`notify.field.url.${kind}`)}
        name="url"
        inputMode="url"
        hint={t(`notify.field.url_hint.${kind}`)}
        value={c.url}
        onInput={(url) => onChange({ url })}
        error={problem('url')}
      />
      {kind === 'webhook' && (
        <SelectField
          label={t('notify.field.format')}
          name="format"
          value={c.format}
          onChange={(v) => onChange({ format: v as WebhookFormat })}
          options={FORMATS.map((f) => ({ value: f, label: t(`notify.format.${f}`) }))}
          hint={t(`notify.format_hint.${c.format}`)}
          error={problem('format')}
        />
      )}
      <StoredSecretField
        label={t('notify.field.token')}
        name="token"
        hint={t(`notify.field.token_hint.${kind}`)}
        stored={c.hasToken}
        value={c.token}
        onInput={(token) => onChange({ token })}
        error={problem('token')}
      />
    </>
  );
}

function SmtpFields({ channel: c, onChange, problem }: FieldsProps) {
  const s = c.smtp;
  const set = (patch: Partial<SmtpDraft>) => onChange({ smtp: { ...s, ...patch } });
  return (
    <>
      <TextField label={t('notify.field.smtp_host')} name="smtp.host" value={s.host} onInput={(host) => set({ host })} error={problem('smtp.host')} />
      <SelectField
        label={t('notify.field.smtp_security')}
        name="smtp.security"
        value={s.security}
        onChange={(v) => onChange({ smtp: withSecurity(s, v as SmtpSecurity) })}
        options={SECURITIES.map((x) => ({ value: x, label: t(`notify.security.${x}`) }))}
        error={problem('smtp.security')}
      />
      <TextField
        label={t('notify.field.smtp_port')}
        name="smtp.port"
        inputMode="numeric"
        value={s.port}
        onInput={(port) => set({ port })}
        error={problem('smtp.port')}
      />
      <TextField
        label={t('notify.field.smtp_username')}
        name="smtp.username"
        hint={t('notify.field.smtp_username_hint')}
        value={s.username}
        onInput={(username) => set({ username })}
        error={problem('smtp.username')}
      />
      <StoredSecretField
        label={t('notify.field.smtp_password')}
        name="smtp.password"
        stored={s.hasPassword}
        value={s.password}
        onInput={(password) => set({ password })}
        error={problem('smtp.password')}
      />
      <TextField
        label={t('notify.field.smtp_from')}
        name="smtp.from"
        inputMode="email"
        value={s.from}
        onInput={(from) => set({ from })}
        error={problem('smtp.from')}
      />
      <TextField
        label={t('notify.field.smtp_to')}
        name="smtp.to"
        inputMode="email"
        hint={t('notify.field.smtp_to_hint')}
        value={s.to}
        onInput={(to) => set({ to })}
        error={problem('smtp.to')}
      />
    </>
  );
}

/** A group of fields in as many columns as fit. */
function FieldGrid({ children }: { children: ComponentChildren }) {
  return <div class="nfy-fields">{children}</div>;
}

import { t } from '../../i18n.ts';
import { FieldGrid, SecretField, SelectField, TextField } from './inputs.tsx';
import type { SmtpSecurity, WebhookFormat } from './notifications-api.ts';
import { type ChannelDraft, FORMATS, SECURITIES, type SmtpDraft, withSecurity } from './notifications-model.ts';

export interface FieldsProps {
  channel: ChannelDraft;
  onChange: (patch: Partial<ChannelDraft>) => void;
  /** What the server said about a field of this channel (`url`, `smtp.host`), or null. */
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
        problem={p.problem('name')}
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
        problem={problem('url')}
      />
      {kind === 'webhook' && (
        <SelectField
          label={t('notify.field.format')}
          name="format"
          value={c.format}
          onChange={(v) => onChange({ format: v as WebhookFormat })}
          options={FORMATS.map((f) => ({ value: f, label: t(`notify.format.${f}`) }))}
          hint={t(`notify.format_hint.${c.format}`)}
          problem={problem('format')}
        />
      )}
      <SecretField
        label={t('notify.field.token')}
        name="token"
        hint={t(`notify.field.token_hint.${kind}`)}
        stored={c.hasToken}
        value={c.token}
        onInput={(token) => onChange({ token })}
        problem={problem('token')}
      />
    </>
  );
}

function SmtpFields({ channel: c, onChange, problem }: FieldsProps) {
  const s = c.smtp;
  const set = (patch: Partial<SmtpDraft>) => onChange({ smtp: { ...s, ...patch } });
  return (
    <>
      <TextField label={t('notify.field.smtp_host')} name="smtp.host" value={s.host} onInput={(host) => set({ host })} problem={problem('smtp.host')} />
      <SelectField
        label={t('notify.field.smtp_security')}
        name="smtp.security"
        value={s.security}
        onChange={(v) => onChange({ smtp: withSecurity(s, v as SmtpSecurity) })}
        options={SECURITIES.map((x) => ({ value: x, label: t(`notify.security.${x}`) }))}
        problem={problem('smtp.security')}
      />
      <TextField
        label={t('notify.field.smtp_port')}
        name="smtp.port"
        inputMode="numeric"
        value={s.port}
        onInput={(port) => set({ port })}
        problem={problem('smtp.port')}
      />
      <TextField
        label={t('notify.field.smtp_username')}
        name="smtp.username"
        hint={t('notify.field.smtp_username_hint')}
        value={s.username}
        onInput={(username) => set({ username })}
        problem={problem('smtp.username')}
      />
      <SecretField
        label={t('notify.field.smtp_password')}
        name="smtp.password"
        stored={s.hasPassword}
        value={s.password}
        onInput={(password) => set({ password })}
        problem={problem('smtp.password')}
      />
      <TextField
        label={t('notify.field.smtp_from')}
        name="smtp.from"
        inputMode="email"
        value={s.from}
        onInput={(from) => set({ from })}
        problem={problem('smtp.from')}
      />
      <TextField
        label={t('notify.field.smtp_to')}
        name="smtp.to"
        inputMode="email"
        hint={t('notify.field.smtp_to_hint')}
        value={s.to}
        onInput={(to) => set({ to })}
        problem={problem('smtp.to')}
      />
    </>
  );
}

import { getLang, t } from '../../i18n.ts';
import type { SectionProps } from './form-bind.ts';
import { Checkbox, SecretInput, Section, Select, TextInput } from './inputs.tsx';
import { PathField } from './path-field.tsx';

/** Every zone the browser knows, offered while typing; the server checks the choice. */
function zones(): string[] {
  const intl = Intl as { supportedValuesOf?: (k: string) => string[] };
  return ['UTC', ...(intl.supportedValuesOf?.('timeZone') ?? [])];
}

/** Weekday names in the interface language; 0 is Sunday, as the server counts. */
function weekdays(): { value: string; label: string }[] {
  const fmt = new Intl.DateTimeFormat(getLang() === 'nl' ? 'nl-NL' : 'en-GB', { weekday: 'long', timeZone: 'UTC' });
  // 1 January 2023 was a Sunday.
  return [0, 1, 2, 3, 4, 5, 6].map((d) => ({ value: String(d), label: fmt.format(new Date(Date.UTC(2023, 0, 1 + d))) }));
}

export function TimeSection(p: SectionProps) {
  return (
    <Section id="settings-time" title={t('settings.time')}>
      <TextInput label={t('settings.timezone')} hint={t('settings.timezone_hint')} list="settings-zones" {...p.text('TIMEZONE')} />
      <datalist id="settings-zones">
        {zones().map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
    </Section>
  );
}

export function NetworksSection(p: SectionProps) {
  return (
    <Section id="settings-networks" title={t('settings.networks')}>
      <TextInput label={t('settings.shared_network')} hint={t('settings.network_hint')} {...p.text('SHARED_NETWORK')} />
      <TextInput label={t('settings.app_networks')} hint={t('settings.app_networks_hint')} {...p.text('APP_NETWORKS')} />
    </Section>
  );
}

export function BackupsSection(p: SectionProps) {
  const mode = p.form.text.BACKUP_SCHEDULE_MODE;
  const modes = [
    { value: 'off', label: t('settings.schedule.off') },
    { value: 'daily', label: t('settings.schedule.daily') },
    { value: 'weekly', label: t('settings.schedule.weekly') },
  ];
  const bind = (k: 'BACKUP_SCHEDULE_MODE' | 'BACKUP_SCHEDULE_DAY') => {
    const b = p.text(k);
    return { name: b.name, value: b.value, invalid: b.invalid, onChange: b.onInput };
  };
  return (
    <Section id="settings-backups" title={t('settings.backups')}>
      <Checkbox label={t('settings.backup_appdata')} {...p.flag('BACKUP_APPDATA')} />
      <Select label={t('settings.schedule_mode')} options={modes} {...bind('BACKUP_SCHEDULE_MODE')} />
      {mode === 'weekly' && <Select label={t('settings.schedule_day')} options={weekdays()} {...bind('BACKUP_SCHEDULE_DAY')} />}
      {mode !== 'off' && <TextInput label={t('settings.schedule_hour')} numeric {...p.text('BACKUP_SCHEDULE_HOUR')} />}
      <TextInput label={t('settings.retention_count')} hint={t('settings.retention_count_hint')} numeric {...p.text('BACKUP_RETENTION_COUNT')} />
      <TextInput label={t('settings.retention_days')} hint={t('settings.retention_days_hint')} numeric {...p.text('BACKUP_RETENTION_DAYS')} />
      <TextInput label={t('settings.disk_min_free')} hint={t('settings.disk_min_free_hint')} numeric {...p.text('DISK_MIN_FREE_GB')} />
      <TextInput label={t('settings.disk_warn')} hint={t('settings.disk_warn_hint')} numeric {...p.text('DISK_WARN_PCT')} />
      <PathField label={t('settings.offsite_dir')} hint={t('settings.offsite_hint')} optional {...p.text('BACKUP_OFFSITE_DIR')} name="BACKUP_OFFSITE_DIR" />
    </Section>
  );
}

export function NotifySection(p: SectionProps) {
  return (
    <Section id="settings-notify" title={t('settings.notify')} intro={t('settings.notify_intro')}>
      <SecretInput label={t('settings.notify_token')} {...p.secret('NOTIFY_TOKEN')} />
      <SecretInput label={t('settings.notify_email_password')} {...p.secret('NOTIFY_EMAIL_PASSWORD')} />
    </Section>
  );
}

export function UpdatesSection(p: SectionProps) {
  const b = p.text('UPDATE_CHANNEL');
  const channels = [
    { value: 'stable', label: t('settings.channel.stable') },
    { value: 'beta', label: t('settings.channel.beta') },
  ];
  return (
    <Section id="settings-updates" title={t('settings.updates')}>
      <Select label={t('settings.update_channel')} options={channels} name={b.name} value={b.value} invalid={b.invalid} onChange={b.onInput} />
      <Checkbox label={t('settings.auto_sync')} {...p.flag('AUTO_SYNC_ON_BOOT')} />
    </Section>
  );
}

export function RegistrySection(p: SectionProps) {
  return (
    <Section id="settings-registry" title={t('settings.registry')} intro={t('settings.registry_intro')}>
      <TextInput label={t('settings.registry_url')} hint={t('settings.registry_url_hint')} {...p.text('REGISTRY_URL')} />
      <TextInput label={t('settings.registry_user')} autocomplete="off" {...p.text('REGISTRY_USER')} />
      <SecretInput label={t('settings.registry_token')} {...p.secret('REGISTRY_TOKEN')} />
    </Section>
  );
}

/** AUTH is read-only here: the server refuses a change through the settings. */
export function SsoSection({ saved }: SectionProps) {
  const a = saved.AUTH;
  const on = a.proxy_header !== '' && a.trusted_proxies.length > 0;
  return (
    <Section id="settings-sso" title={t('settings.sso')} intro={t('settings.sso_intro')}>
      {on ? (
        <ul class="plain-list">
          <li>{t('settings.sso_header', { header: a.proxy_header })}</li>
          <li>{t('settings.sso_proxies', { proxies: a.trusted_proxies.join(', ') })}</li>
          <li>{t('settings.sso_role', { role: a.proxy_role })}</li>
        </ul>
      ) : (
        <p>{t('settings.sso_off')}</p>
      )}
    </Section>
  );
}

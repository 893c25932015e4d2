import { CheckboxField, SelectField, TextAreaField, TextField } from '../../forms/field.tsx';
import { PathField } from '../../forms/path-field.tsx';
import { StoredSecretField } from '../../forms/secret-field.tsx';
import { t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import type { SectionProps } from './form-bind.ts';
import { Section } from './section.tsx';

/** Every zone the browser knows, offered while typing; the server checks the choice. */
function zones(): string[] {
  const intl = Intl as { supportedValuesOf?: (k: string) => string[] };
  return ['UTC', ...(intl.supportedValuesOf?.('timeZone') ?? [])];
}

export function TimeSection(p: SectionProps) {
  return (
    <Section id="settings-time" title={t('settings.time')}>
      <TextField label={t('settings.timezone')} hint={t('settings.timezone_hint')} list="settings-zones" {...p.text('TIMEZONE')} />
      <datalist id="settings-zones">
        {zones().map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
    </Section>
  );
}

/** The stand-in secrets of the notification channels; the channels themselves are set on the Notifications screen. */
export function NotifySection(p: SectionProps) {
  return (
    <Section id="settings-notify" title={t('settings.notify')} intro={t('settings.notify_intro')}>
      <StoredSecretField label={t('settings.notify_token')} {...p.secret('NOTIFY_TOKEN')} />
      <StoredSecretField label={t('settings.notify_email_password')} {...p.secret('NOTIFY_EMAIL_PASSWORD')} />
      <p class="settings-more">
        <a href="/notifications" onClick={onLinkClick}>
          {t('settings.notify_link')}
        </a>
      </p>
    </Section>
  );
}

/**
 * What a backup holds and the room that stays free. BACKUP_DIR sits with the other folders; the schedule and
 * retention are edited on the Backups screen (PUT /api/backups/schedule), not here.
 */
export function BackupsSection(p: SectionProps) {
  const offsite = p.text('BACKUP_OFFSITE_DIR');
  const compression = p.text('BACKUP_COMPRESSION');
  const kinds = [
    { value: 'gzip', label: t('settings.compression.gzip') },
    { value: 'zstd', label: t('settings.compression.zstd') },
  ];
  return (
    <Section id="settings-backups" title={t('settings.backups')} intro={t('settings.backups_intro')}>
      <CheckboxField label={t('settings.backup_appdata')} {...p.flag('BACKUP_APPDATA')} />
      <SelectField
        label={t('settings.compression')}
        hint={t('settings.compression_hint')}
        options={kinds}
        name={compression.name}
        value={compression.value}
        error={compression.error}
        onChange={compression.onInput}
      />
      <PathField
        label={t('settings.offsite_dir')}
        name="BACKUP_OFFSITE_DIR"
        value={offsite.value}
        error={offsite.error}
        onInput={offsite.onInput}
        hint={t('settings.offsite_hint')}
        optional
      />
      <TextField label={t('settings.disk_min_free')} hint={t('settings.disk_min_free_hint')} inputMode="decimal" narrow {...p.text('DISK_MIN_FREE_GB')} />
      <TextField label={t('settings.disk_warn')} hint={t('settings.disk_warn_hint')} inputMode="decimal" narrow {...p.text('DISK_WARN_PCT')} />
      <p class="settings-more">
        <a href="/backups" onClick={onLinkClick}>
          {t('settings.backups_link')}
        </a>
      </p>
    </Section>
  );
}

/** The names of the shared networks apps can join; their address plans are made on the Networks screen. */
export function NetworksSection(p: SectionProps) {
  return (
    <Section id="settings-networks" title={t('settings.networks')} intro={t('settings.networks_intro')}>
      <TextField label={t('settings.shared_network')} hint={t('settings.network_hint')} {...p.text('SHARED_NETWORK')} />
      <TextField label={t('settings.app_networks')} hint={t('settings.app_networks_hint')} {...p.text('APP_NETWORKS')} />
    </Section>
  );
}

/** Who may give an app powers over the host, and which host folders apps may use (compose and bind policy). */
export function SecuritySection(p: SectionProps) {
  const b = p.text('ALLOW_PRIVILEGED_APPS');
  const who = [
    { value: 'admins', label: t('settings.allow_privileged.admins') },
    { value: 'everyone', label: t('settings.allow_privileged.everyone') },
  ];
  return (
    <Section id="settings-security" title={t('settings.security')} intro={t('settings.security_intro')}>
      <SelectField
        label={t('settings.allow_privileged')}
        hint={t('settings.allow_privileged_hint')}
        options={who}
        name={b.name}
        value={b.value}
        error={b.error}
        onChange={b.onInput}
      />
      <TextAreaField label={t('settings.allowed_host_dirs')} hint={t('settings.allowed_host_dirs_hint')} {...p.text('ALLOWED_HOST_DIRS')} />
    </Section>
  );
}

/** Kade's own update channel (UPDATE_CHANNEL), saved with the form; the "Update Kade" panel offers what it allows. */
function ChannelSelect(p: SectionProps) {
  const channel = p.text('UPDATE_CHANNEL');
  const options = [
    { value: 'stable', label: t('settings.channel.stable') },
    { value: 'beta', label: t('settings.channel.beta') },
  ];
  return (
    <SelectField
      label={t('settings.update_channel')}
      hint={t('settings.update_channel_hint')}
      options={options}
      name={channel.name}
      value={channel.value}
      error={channel.error}
      onChange={channel.onInput}
    />
  );
}

export function UpdatesSection(p: SectionProps) {
  return (
    <Section id="settings-updates" title={t('settings.updates')}>
      <CheckboxField label={t('settings.update_check')} hint={t('settings.update_check_hint')} {...p.flag('UPDATE_CHECK_ENABLED')} />
      <CheckboxField label={t('settings.auto_sync')} {...p.flag('AUTO_SYNC_ON_BOOT')} />
      <ChannelSelect {...p} />
    </Section>
  );
}

export function RegistrySection(p: SectionProps) {
  return (
    <Section id="settings-registry" title={t('settings.registry')} intro={t('settings.registry_intro')}>
      <TextField label={t('settings.registry_url')} hint={t('settings.registry_url_hint')} {...p.text('REGISTRY_URL')} />
      <TextField label={t('settings.registry_user')} autocomplete="off" {...p.text('REGISTRY_USER')} />
      <StoredSecretField label={t('settings.registry_token')} {...p.secret('REGISTRY_TOKEN')} />
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
      <p class="muted small">{saved.AUTH_SOURCE === 'settings' ? t('settings.sso_from_settings') : t('settings.sso_from_env')}</p>
    </Section>
  );
}

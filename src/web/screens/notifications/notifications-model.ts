import type { ChannelInput, ChannelKind, ChannelT, DeliveryT, NotificationsT, NotificationsUpdateT, SmtpSecurity, WebhookFormat } from './notifications-api.ts';

/** The kinds a rule can route, in the order the matrix lists them; the server's list wins when it sends one. */
export const KINDS = ['backup_failed', 'archive_unreadable', 'job_stuck', 'update_available', 'disk_low', 'container_stopped', 'security_refusal'] as const;
export const CHANNEL_KINDS: readonly ChannelKind[] = ['push', 'webhook', 'email'];
export const FORMATS: readonly WebhookFormat[] = ['generic', 'slack', 'discord', 'matrix'];
export const SECURITIES: readonly SmtpSecurity[] = ['starttls', 'tls', 'none'];

/** SMTP settings as typed; the password is write-only and starts empty. */
export interface SmtpDraft {
  host: string;
  port: string;
  security: SmtpSecurity;
  username: string;
  password: string;
  hasPassword: boolean;
  from: string;
  to: string;
}

/** One channel as the form edits it: the secrets are what is typed now, `hasToken` what the server keeps. */
export interface ChannelDraft {
  id: string;
  kind: ChannelKind;
  enabled: boolean;
  name: string;
  url: string;
  format: WebhookFormat;
  token: string;
  hasToken: boolean;
  smtp: SmtpDraft;
  history: DeliveryT[];
}

export interface NotifyForm {
  channels: ChannelDraft[];
  rules: Record<string, string[]>;
}

const DEFAULT_PORT: Record<SmtpSecurity, string> = { starttls: '587', tls: '465', none: '25' };

const emptySmtp = (): SmtpDraft => ({
  host: '',
  port: DEFAULT_PORT.starttls,
  security: 'starttls',
  username: '',
  password: '',
  hasPassword: false,
  from: '',
  to: '',
});

/** A fresh id for a new channel: random, lower-case hex, the same with or without a secure context. */
export function newChannelId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return `ch-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function newChannel(kind: ChannelKind, id = newChannelId()): ChannelDraft {
  return { id, kind, enabled: true, name: '', url: '', format: 'generic', token: '', hasToken: false, smtp: emptySmtp(), history: [] };
}

function toDraft(c: ChannelT): ChannelDraft {
  const s = c.smtp;
  return {
    id: c.id,
    kind: c.kind,
    enabled: c.enabled,
    name: c.name ?? '',
    url: c.url ?? '',
    format: c.format ?? 'generic',
    token: '',
    hasToken: c.has_token === true,
    smtp: s
      ? { host: s.host, port: String(s.port), security: s.security, username: s.username, password: '', hasPassword: s.has_password, from: s.from, to: s.to }
      : emptySmtp(),
    history: c.history,
  };
}

/** What the server keeps, as the form shows it; secrets are never part of it. */
export function toForm(v: NotificationsT): NotifyForm {
  return { channels: v.channels.map(toDraft), rules: Object.fromEntries(Object.entries(v.rules).map(([k, ids]) => [k, [...ids]])) };
}

/** The port as a number when it is one; anything else goes as typed so the server names the field. */
function portOf(text: string): number {
  const t = text.trim();
  return /^\d+$/.test(t) ? Number(t) : Number.NaN;
}

function toInput(c: ChannelDraft): ChannelInput {
  const base: ChannelInput = { id: c.id, kind: c.kind, enabled: c.enabled };
  if (c.name.trim()) base.name = c.name.trim();
  if (c.kind === 'email') {
    const s = c.smtp;
    const smtp: NonNullable<ChannelInput['smtp']> = {
      host: s.host.trim(),
      port: portOf(s.port),
      security: s.security,
      username: s.username.trim(),
      from: s.from.trim(),
      to: s.to.trim(),
    };
    // Empty keeps the stored password; it is only sent when one is typed.
    if (s.password !== '') smtp.password = s.password;
    return { ...base, smtp };
  }
  const out: ChannelInput = { ...base, url: c.url.trim() };
  if (c.kind === 'webhook') out.format = c.format;
  if (c.token !== '') out.token = c.token;
  return out;
}

/** The PUT body: each channel with the fields of its kind, rules only for channels that exist, empty rules left out. */
export function toUpdate(f: NotifyForm): NotificationsUpdateT {
  const ids = new Set(f.channels.map((c) => c.id));
  const rules: Record<string, string[]> = {};
  for (const [kind, list] of Object.entries(f.rules)) {
    const kept = list.filter((id) => ids.has(id));
    if (kept.length > 0) rules[kind] = kept;
  }
  return { channels: f.channels.map(toInput), rules };
}

/** Whether a channel has a rule at all; one without any receives every kind. */
export const hasRules = (rules: Record<string, string[]>, id: string): boolean => Object.values(rules).some((ids) => ids.includes(id));

export function toggleRule(rules: Record<string, string[]>, kind: string, id: string, on: boolean): Record<string, string[]> {
  const list = (rules[kind] ?? []).filter((x) => x !== id);
  return { ...rules, [kind]: on ? [...list, id] : list };
}

export function removeChannel(f: NotifyForm, id: string): NotifyForm {
  return {
    channels: f.channels.filter((c) => c.id !== id),
    rules: Object.fromEntries(Object.entries(f.rules).map(([k, ids]) => [k, ids.filter((x) => x !== id)])),
  };
}

/** A new security choice moves the port along when it still holds the previous choice's usual port. */
export function withSecurity(s: SmtpDraft, security: SmtpSecurity): SmtpDraft {
  const port = s.port.trim() === '' || s.port.trim() === DEFAULT_PORT[s.security] ? DEFAULT_PORT[security] : s.port;
  return { ...s, security, port };
}

/**
 * The fields a refusal names, by channel: `channels[0].url` and `channels.0.smtp.host` both become
 * `{0: ['url', 'smtp.host']}`; other names (rules, the body) are kept apart.
 */
export function fieldsByChannel(fields: string[]): { channels: Map<number, string[]>; other: string[] } {
  const channels = new Map<number, string[]>();
  const other: string[] = [];
  for (const raw of fields) {
    const m = /^channels(?:\[(\d+)\]|\.(\d+))(?:\.(.+))?$/.exec(raw);
    if (!m) {
      other.push(raw);
      continue;
    }
    const index = Number(m[1] ?? m[2]);
    const list = channels.get(index) ?? [];
    list.push(m[3] ?? '');
    channels.set(index, list);
  }
  return { channels, other };
}

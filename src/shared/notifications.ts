/**
 * Notification channels and rules (GET/PUT /api/notifications, POST /api/notifications/test), shared by the
 * server and the interface: one validator for both.
 */
import { z } from 'zod';

/** SPEC Events: the notification kinds. */
export const NOTIFICATION_KINDS = [
  'backup_failed',
  'archive_unreadable',
  'job_stuck',
  'update_available',
  'disk_low',
  'container_stopped',
  'security_refusal',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
/** What a message is about: a kind, or `test` for the test button. */
export type MessageKind = NotificationKind | 'test';
/** Kinds sent once per round per subject (a backup round, a verify, the daily update check, a stuck job's id). */
export const ROUND_KINDS = [
  'backup_failed',
  'archive_unreadable',
  'job_stuck',
  'update_available',
  'security_refusal',
] as const satisfies readonly NotificationKind[];
/** Kinds sent only when a subject enters the state, again only after it has left it. */
export const TRANSITION_KINDS = ['disk_low', 'container_stopped'] as const satisfies readonly NotificationKind[];

export const CHANNEL_KINDS = ['push', 'webhook', 'email'] as const;
export const WEBHOOK_FORMATS = ['generic', 'slack', 'discord', 'matrix'] as const;
export const SMTP_SECURITY = ['starttls', 'tls', 'none'] as const;
export const CHANNEL_ID = /^[a-z0-9-]{1,40}$/;
/** Delivery history kept per channel, newest first. */
export const HISTORY_LIMIT = 20;
/** A send that takes longer fails with this limit in its error. */
export const SEND_TIMEOUT_MS = 10_000;

const ChannelId = z.string().regex(CHANNEL_ID, 'lower-case letters, digits and -, at most 40');
const HttpUrl = z
  .string()
  .max(2048)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
    } catch {
      return false;
    }
  }, 'an http:// or https:// address');
const Text = (max: number) => z.string().max(max);
/** A write-only secret in a PUT: a new value; empty, null or absent keeps the stored one of the same channel id. */
const SecretIn = z.string().max(4096).nullable().optional();

const SmtpIn = z.object({
  host: z.string().min(1, 'required').max(253),
  port: z.number().int().min(1).max(65535),
  security: z.enum(SMTP_SECURITY),
  username: Text(320).optional().default(''),
  password: SecretIn,
  from: z.string().min(3, 'required').max(320).regex(/@/, 'an e-mail address'),
  to: z.string().min(3, 'required').max(2048).regex(/@/, 'one or more e-mail addresses, separated by commas'),
});

/** A channel in a PUT; `token` and `smtp.password` are write-only. Push and webhook need `url`, e-mail needs `smtp`. */
export const ChannelIn = z
  .object({
    id: ChannelId,
    kind: z.enum(CHANNEL_KINDS),
    enabled: z.boolean(),
    name: Text(100).optional(),
    url: z.string().max(2048).optional(),
    format: z.enum(WEBHOOK_FORMATS).optional(),
    token: SecretIn,
    smtp: SmtpIn.optional(),
  })
  .superRefine((c, ctx) => {
    if (c.kind === 'email') {
      if (!c.smtp) ctx.addIssue({ code: 'custom', message: 'required for an e-mail channel', path: ['smtp'] });
      return;
    }
    if (c.url === undefined || c.url === '') ctx.addIssue({ code: 'custom', message: 'required', path: ['url'] });
    else if (!HttpUrl.safeParse(c.url).success) ctx.addIssue({ code: 'custom', message: 'an http:// or https:// address', path: ['url'] });
  });
export type ChannelInT = z.output<typeof ChannelIn>;

const Rules = z.partialRecord(z.enum(NOTIFICATION_KINDS), z.array(ChannelId).max(50));

/** PUT /api/notifications and POST /api/notifications/test. */
export const NotificationsUpdate = z
  .object({
    channels: z.array(ChannelIn).max(50),
    rules: Rules.optional().default({}),
  })
  .superRefine((v, ctx) => {
    const seen = new Set<string>();
    v.channels.forEach((c, i) => {
      if (seen.has(c.id)) ctx.addIssue({ code: 'custom', message: `channel id '${c.id}' is used twice`, path: ['channels', i, 'id'] });
      seen.add(c.id);
    });
    for (const [kind, ids] of Object.entries(v.rules)) {
      const unknown = (ids ?? []).filter((id) => !seen.has(id));
      if (unknown.length > 0) ctx.addIssue({ code: 'custom', message: `unknown channel ${unknown.join(', ')}`, path: ['rules', kind] });
    }
  });
export type NotificationsUpdateT = z.output<typeof NotificationsUpdate>;
export type NotificationsUpdateIn = z.input<typeof NotificationsUpdate>;

export const Delivery = z.object({
  at: z.string(),
  kind: z.string(),
  ok: z.boolean(),
  /** The HTTP status or the SMTP reply code. */
  status: z.number().int().optional(),
  error: z.string().optional(),
});
export type DeliveryT = z.infer<typeof Delivery>;

export const SmtpOut = z.object({
  host: z.string(),
  port: z.number().int(),
  security: z.enum(SMTP_SECURITY),
  username: z.string(),
  has_password: z.boolean(),
  from: z.string(),
  to: z.string(),
});

/** A channel as answered: secrets only as `has_token` / `smtp.has_password`. */
export const Channel = z.object({
  id: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  enabled: z.boolean(),
  name: z.string().optional(),
  url: z.string().optional(),
  format: z.enum(WEBHOOK_FORMATS).optional(),
  has_token: z.boolean().optional(),
  smtp: SmtpOut.optional(),
  /** Newest first, at most HISTORY_LIMIT. */
  history: z.array(Delivery),
});
export type ChannelT = z.infer<typeof Channel>;

/** GET /api/notifications. A channel named in no rule receives every kind. */
export const Notifications = z.object({
  channels: z.array(Channel),
  rules: z.partialRecord(z.enum(NOTIFICATION_KINDS), z.array(z.string())),
  kinds: z.array(z.enum(NOTIFICATION_KINDS)),
  /** A job running longer than this counts as stuck. */
  stuck_after_minutes: z.number(),
});
export type NotificationsT = z.infer<typeof Notifications>;

export const TestResult = z.object({
  channel: z.string(),
  kind: z.enum(CHANNEL_KINDS),
  ok: z.boolean(),
  status: z.number().int().optional(),
  error: z.string().optional(),
});
export const TestResults = z.object({ results: z.array(TestResult) });
export type TestResultsT = z.infer<typeof TestResults>;

/** `channels[0].url` for the path ['channels', 0, 'url'] of a validation issue. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, p) => (typeof p === 'number' ? `${out}[${p}]` : out ? `${out}.${String(p)}` : String(p)), '');
}

import {
  type CHANNEL_KINDS,
  type DeliveryT,
  HISTORY_LIMIT,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type SMTP_SECURITY,
  type WEBHOOK_FORMATS,
} from '../../shared/notifications.ts';
import type { Db } from '../db/db.ts';
import type { SecretBox } from '../db/secret-box.ts';

/** A channel as stored, with its secrets opened: only the senders see `token` and `smtp.password`. */
export interface StoredChannel {
  id: string;
  kind: (typeof CHANNEL_KINDS)[number];
  enabled: boolean;
  name?: string;
  url?: string;
  format?: (typeof WEBHOOK_FORMATS)[number];
  token: string | null;
  smtp?: {
    host: string;
    port: number;
    security: (typeof SMTP_SECURITY)[number];
    username: string;
    password: string | null;
    from: string;
    to: string;
  };
}

export type Rules = Partial<Record<NotificationKind, string[]>>;

interface ChannelRow {
  id: string;
  kind: string;
  enabled: number;
  config: string;
  token: string | null;
  password: string | null;
}

/** Channels, rules, delivery history and the notifier's last state per kind and subject, in SQLite; secrets sealed with `box`. */
export function createNotificationsRepo(db: Db, box: SecretBox) {
  const selChannels = db.prepare<[], ChannelRow>('SELECT id, kind, enabled, config, token, password FROM notify_channels ORDER BY position');
  const delChannels = db.prepare('DELETE FROM notify_channels');
  const insChannel = db.prepare('INSERT INTO notify_channels (id, position, kind, enabled, config, token, password) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const selRules = db.prepare<[], { kind: string; channel_id: string }>('SELECT kind, channel_id FROM notify_rules ORDER BY rowid');
  const delRules = db.prepare('DELETE FROM notify_rules');
  const insRule = db.prepare('INSERT OR IGNORE INTO notify_rules (kind, channel_id) VALUES (?, ?)');
  const delHistoryGone = db.prepare('DELETE FROM notify_history WHERE channel_id NOT IN (SELECT id FROM notify_channels)');
  const insHistory = db.prepare('INSERT INTO notify_history (channel_id, at, kind, ok, status, error) VALUES (?, ?, ?, ?, ?, ?)');
  const trimHistory = db.prepare(
    'DELETE FROM notify_history WHERE channel_id = ? AND id NOT IN (SELECT id FROM notify_history WHERE channel_id = ? ORDER BY id DESC LIMIT ?)',
  );
  const selHistory = db.prepare<[string, number], { at: string; kind: string; ok: number; status: number | null; error: string | null }>(
    'SELECT at, kind, ok, status, error FROM notify_history WHERE channel_id = ? ORDER BY id DESC LIMIT ?',
  );
  const selState = db.prepare<[string, string], { value: string }>('SELECT value FROM notify_state WHERE kind = ? AND subject = ?');
  const upState = db.prepare(
    'INSERT INTO notify_state (kind, subject, value, at) VALUES (?, ?, ?, ?) ON CONFLICT(kind, subject) DO UPDATE SET value = excluded.value, at = excluded.at',
  );

  const open = (v: string | null) => (v === null ? null : box.open(v));
  const seal = (v: string | null) => (v === null || v === '' ? null : box.seal(v));

  function channels(): StoredChannel[] {
    return selChannels.all().map((r) => {
      const config = JSON.parse(r.config) as Omit<StoredChannel, 'id' | 'kind' | 'enabled' | 'token'>;
      const c: StoredChannel = { id: r.id, kind: r.kind as StoredChannel['kind'], enabled: r.enabled === 1, token: open(r.token), ...config };
      if (c.smtp) c.smtp = { ...c.smtp, password: open(r.password) };
      return c;
    });
  }

  const save = db.transaction((list: StoredChannel[], rules: Rules) => {
    delChannels.run();
    list.forEach((c, i) => {
      const { id, kind, enabled, token, smtp, ...rest } = c;
      const config = { ...rest, ...(smtp ? { smtp: { ...smtp, password: null } } : {}) };
      insChannel.run(id, i, kind, enabled ? 1 : 0, JSON.stringify(config), seal(token), seal(smtp?.password ?? null));
    });
    delRules.run();
    for (const [kind, ids] of Object.entries(rules)) for (const id of ids ?? []) insRule.run(kind, id);
    delHistoryGone.run();
  });

  return {
    channels,
    rules(): Rules {
      const out: Rules = {};
      for (const r of selRules.all()) {
        const kind = NOTIFICATION_KINDS.find((k) => k === r.kind);
        if (kind) out[kind] = [...(out[kind] ?? []), r.channel_id];
      }
      return out;
    },
    /** Replaces every channel and rule in one transaction; the history of channels that are gone goes with them. */
    save: (list: StoredChannel[], rules: Rules) => save(list, rules),
    /** Adds one delivery and keeps the newest HISTORY_LIMIT of the channel. */
    record(channel: string, d: DeliveryT): void {
      insHistory.run(channel, d.at, d.kind, d.ok ? 1 : 0, d.status ?? null, d.error ?? null);
      trimHistory.run(channel, channel, HISTORY_LIMIT);
    },
    history(channel: string): DeliveryT[] {
      return selHistory.all(channel, HISTORY_LIMIT).map((r) => ({
        at: r.at,
        kind: r.kind,
        ok: r.ok === 1,
        ...(r.status !== null ? { status: r.status } : {}),
        ...(r.error !== null ? { error: r.error } : {}),
      }));
    },
    /** The last round or state the notifier stored for a kind and subject; null when none. */
    state: (kind: string, subject: string): string | null => selState.get(kind, subject)?.value ?? null,
    setState(kind: string, subject: string, value: string, at: string): void {
      upState.run(kind, subject, value, at);
    },
  };
}

export type NotificationsRepo = ReturnType<typeof createNotificationsRepo>;

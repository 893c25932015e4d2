import { type ChannelT, NOTIFICATION_KINDS, type NotificationsT, type NotificationsUpdateT, type TestResultsT } from '../../shared/notifications.ts';
import { requireRole } from '../core/authorize.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { NotificationsRepo, StoredChannel } from './notifications.repo.ts';
import type { Notifier } from './notifier.ts';

/** A write-only value in a PUT: a new one replaces; empty, blank, null or absent keeps the stored one. */
const keep = (input: string | null | undefined, stored: string | null | undefined): string | null =>
  typeof input === 'string' && input.trim() !== '' ? input : (stored ?? null);

/** Scheme, host and port of a channel's address; null when it cannot be read. */
function originOf(url: string | undefined): string | null {
  try {
    return url ? new URL(url).origin : null;
  } catch {
    return null;
  }
}

/**
 * The channels of a PUT with the stored secrets of the same channel id kept where none was sent, and only for the
 * same server: a token whose address moved to another scheme, host or port, or a password whose SMTP host or port
 * changed, is dropped unless it is sent again (a secret never follows an edited address to a new server).
 */
export function mergeChannels(input: NotificationsUpdateT['channels'], stored: readonly StoredChannel[]): StoredChannel[] {
  const before = new Map(stored.map((c) => [c.id, c]));
  return input.map((c) => {
    const old = before.get(c.id);
    const out: StoredChannel = { id: c.id, kind: c.kind, enabled: c.enabled, token: null };
    if (c.name) out.name = c.name;
    if (c.kind === 'email' && c.smtp) {
      const { password, ...smtp } = c.smtp;
      const sameServer = old?.smtp?.host.toLowerCase() === smtp.host.toLowerCase() && old.smtp.port === smtp.port;
      out.smtp = { ...smtp, password: keep(password, sameServer ? old.smtp?.password : null) };
      return out;
    }
    out.url = c.url ?? '';
    if (c.kind === 'webhook') out.format = c.format ?? 'generic';
    const sameServer = originOf(out.url) !== null && originOf(out.url) === originOf(old?.url);
    out.token = keep(c.token, sameServer ? old?.token : null);
    return out;
  });
}

/** A stored channel as answered: secrets only as flags. */
export function presentChannel(c: StoredChannel, history: ChannelT['history']): ChannelT {
  const out: ChannelT = { id: c.id, kind: c.kind, enabled: c.enabled, history };
  if (c.name) out.name = c.name;
  if (c.kind === 'email' && c.smtp) {
    const { password, ...smtp } = c.smtp;
    out.smtp = { ...smtp, has_password: password !== null };
    return out;
  }
  if (c.url !== undefined) out.url = c.url;
  if (c.format) out.format = c.format;
  out.has_token = c.token !== null;
  return out;
}

/** GET/PUT /api/notifications and the test button; admins only, like the settings. */
export function createNotificationsService(d: { repo: NotificationsRepo; notifier: Notifier; events: EventBus; stuckAfterMinutes: number }) {
  function view(): NotificationsT {
    return {
      channels: d.repo.channels().map((c) => presentChannel(c, d.repo.history(c.id))),
      rules: d.repo.rules(),
      kinds: [...NOTIFICATION_KINDS],
      stuck_after_minutes: d.stuckAfterMinutes,
    };
  }

  function save(actor: Actor, input: NotificationsUpdateT, test: boolean): void {
    const stored = d.repo.channels();
    const next = mergeChannels(input.channels, stored);
    d.repo.save(next, input.rules);
    // Names only: which channels exist and whose write-only value was replaced (a key the audit redaction keeps); never a value.
    const before = new Map(stored.map((c) => [c.id, c]));
    const replaced = next.filter((c) => {
      const old = before.get(c.id);
      return (c.token !== null && c.token !== (old?.token ?? null)) || (c.smtp?.password != null && c.smtp.password !== (old?.smtp?.password ?? null));
    });
    d.events.emit({
      type: 'notifications.updated',
      actor,
      source: 'settings',
      target: 'notifications',
      status: 'ok',
      detail: { channels: next.map((c) => c.id).join(','), new_write_only_values: replaced.map((c) => c.id).join(','), ...(test ? { test: true } : {}) },
    });
  }

  return {
    read(actor: Actor): NotificationsT {
      requireRole(actor, 'admin', 'notifications');
      return view();
    },
    update(actor: Actor, input: NotificationsUpdateT): NotificationsT {
      requireRole(actor, 'admin', 'notifications');
      save(actor, input, false);
      return view();
    },
    /** Saves first, then sends one test message to every enabled channel and answers what each said. */
    async test(actor: Actor, input: NotificationsUpdateT): Promise<TestResultsT> {
      requireRole(actor, 'admin', 'notifications');
      save(actor, input, true);
      return d.notifier.test();
    },
  };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;

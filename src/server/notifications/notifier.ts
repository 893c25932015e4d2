/**
 * The rules engine (SPEC Events). Modules ask for a message by emitting `notify.<kind>` events (or the backup events
 * mapped below); the notifier decides whether it is due, picks the channels and sends in the background.
 *
 * - Round kinds (backup_failed, archive_unreadable, job_stuck, update_available): one message per round per subject.
 *   The round is named by whoever emits: a backup job's id, a verify job's id, the due time of a scheduled backup
 *   round (one message naming every app that failed, one naming every unreadable archive), the day of the daily
 *   update check, a stuck job's id. The last round per kind and subject is stored.
 * - Transition kinds (disk_low, container_stopped): `state: on` sends only when the subject was not in the state;
 *   `state: off` records that it left. The state per subject is stored, so a restart neither repeats nor loses.
 *
 * Sending never throws and never blocks the emitter: a dead channel shows in its delivery history and the log.
 */
import { randomUUID } from 'node:crypto';
import { NOTIFICATION_KINDS, type NotificationKind, ROUND_KINDS, type TestResultsT } from '../../shared/notifications.ts';
import { errorMessage } from '../core/errors.ts';
import type { DomainEvent, EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { Message, SendResult } from './message.ts';
import type { NotificationsRepo, Rules, StoredChannel } from './notifications.repo.ts';

export interface NotifyRequest {
  kind: NotificationKind;
  subject: string;
  message: string;
  /** Round kinds: the round this is part of. */
  round?: string;
  /** Transition kinds: entering (`on`) or leaving (`off`) the state. */
  state?: 'on' | 'off';
  /** The title in place of the kind's own (a round over several apps names them all). */
  title?: string;
}

/** Sends one message to one channel; never throws. */
export type Send = (channel: StoredChannel, m: Message) => Promise<SendResult>;

const TITLES: Record<NotificationKind | 'test', (subject: string) => string> = {
  backup_failed: (s) => `Backup of ${s} failed`,
  archive_unreadable: (s) => `Backup ${s} is unreadable`,
  job_stuck: (s) => `A job is stuck: ${s}`,
  update_available: (s) => `Update available for ${s}`,
  disk_low: (s) => `Low disk space on ${s}`,
  container_stopped: (s) => `Container stopped: ${s}`,
  security_refusal: (s) => `Kade refused to run the files of ${s}`,
  test: () => 'Test message',
};

/** The event any module emits to ask for a message: `notify.<kind>`, target the subject. */
export function notifyEvent(r: NotifyRequest): DomainEvent {
  const detail: Record<string, string> = { message: r.message };
  if (r.round !== undefined) detail.round = r.round;
  if (r.state !== undefined) detail.state = r.state;
  if (r.title !== undefined) detail.title = r.title;
  return { type: `notify.${r.kind}`, actor: null, source: 'notify', target: r.subject, status: 'ok', detail };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The message a domain event asks for, or null. Backup failures and failed verifications map to their kinds here,
 * except those of a scheduled round: the round sends one message naming every app (backups-module.ts).
 */
export function requestOf(e: DomainEvent): NotifyRequest | null {
  const d = e.detail ?? {};
  if ((e.type === 'backup.failed' || e.type === 'backup.verified') && d.reason === 'schedule') return null;
  if (e.type === 'backup.failed' && e.target) {
    const reason = str(d.reason) ?? 'manual';
    return {
      kind: 'backup_failed',
      subject: e.target,
      round: str(d.job) ?? randomUUID(),
      message: `The ${reason} backup of ${e.target} failed: ${str(d.error) ?? 'unknown error'}`,
    };
  }
  if (e.type === 'backup.verified' && e.status === 'failed') {
    const id = str(d.id) ?? e.target ?? 'backup';
    return {
      kind: 'archive_unreadable',
      subject: id,
      round: str(d.job) ?? randomUUID(),
      message: `Backup ${id} of ${e.target ?? 'an app'} failed verification: the archive cannot be read back as written.`,
    };
  }
  if (e.source !== 'notify' || !e.target) return null;
  const kind = NOTIFICATION_KINDS.find((k) => e.type === `notify.${k}`);
  if (!kind) return null;
  const state = d.state === 'on' || d.state === 'off' ? d.state : undefined;
  const round = str(d.round);
  const title = str(d.title);
  return { kind, subject: e.target, message: str(d.message) ?? '', ...(round ? { round } : {}), ...(state ? { state } : {}), ...(title ? { title } : {}) };
}

/** Which enabled channels get a kind: those the rules name for it, and every channel named in no rule. */
export function channelsFor(kind: NotificationKind, channels: readonly StoredChannel[], rules: Rules): StoredChannel[] {
  const ruled = new Set(Object.values(rules).flatMap((ids) => ids ?? []));
  const mine = new Set(rules[kind] ?? []);
  return channels.filter((c) => c.enabled && (!ruled.has(c.id) || mine.has(c.id)));
}

export interface NotifierDeps {
  repo: Pick<NotificationsRepo, 'channels' | 'rules' | 'record' | 'state' | 'setState'>;
  send: Send;
  /** The channels as they send: the settings' NOTIFY_TOKEN / NOTIFY_EMAIL_PASSWORD fill in a missing secret. */
  resolve?: (c: StoredChannel) => StoredChannel;
  logger: Logger;
  clock: () => Date;
}

/** What the notifier works with: its deps and the sends under way. */
interface Sending {
  d: NotifierDeps;
  resolve: (c: StoredChannel) => StoredChannel;
  pending: Set<Promise<unknown>>;
}

/** Sends to one channel and records the outcome; never throws. */
async function deliver(n: Sending, c: StoredChannel, m: Message): Promise<SendResult> {
  const { d } = n;
  let r: SendResult;
  try {
    r = await d.send(n.resolve(c), m);
  } catch (err) {
    r = { ok: false, error: errorMessage(err) };
  }
  try {
    d.repo.record(c.id, {
      at: d.clock().toISOString(),
      kind: m.kind,
      ok: r.ok,
      ...(r.status !== undefined ? { status: r.status } : {}),
      ...(r.error ? { error: r.error } : {}),
    });
  } catch (err) {
    d.logger.warn({ err: errorMessage(err), channel: c.id }, 'delivery not recorded');
  }
  if (!r.ok) d.logger.warn({ channel: c.id, kind: m.kind, status: r.status, error: r.error }, 'notification not delivered');
  return r;
}

function track<T>(n: Sending, p: Promise<T>): Promise<T> {
  n.pending.add(p);
  void p.finally(() => n.pending.delete(p));
  return p;
}

/** Whether the request is due; records the round or state when it is (before sending, so a crash cannot repeat it). */
function due(d: NotifierDeps, r: NotifyRequest): boolean {
  const last = d.repo.state(r.kind, r.subject);
  const now = d.clock().toISOString();
  if ((ROUND_KINDS as readonly string[]).includes(r.kind)) {
    const round = r.round ?? now;
    if (last === round) return false;
    d.repo.setState(r.kind, r.subject, round, now);
    return true;
  }
  const state = r.state ?? 'on';
  if (last === state || (last === null && state === 'off')) return false;
  d.repo.setState(r.kind, r.subject, state, now);
  return state === 'on';
}

function request(n: Sending, r: NotifyRequest): void {
  const { d } = n;
  if (!due(d, r)) return;
  const m: Message = {
    kind: r.kind,
    title: `Kade: ${r.title ?? TITLES[r.kind](r.subject)}`,
    message: r.message,
    subject: r.subject,
    at: d.clock().toISOString(),
  };
  const targets = channelsFor(r.kind, d.repo.channels(), d.repo.rules());
  for (const c of targets) void track(n, deliver(n, c, m));
}

/** One test message to every enabled channel, whatever the rules; what each answered. */
async function sendTest(n: Sending): Promise<TestResultsT> {
  const { d } = n;
  const at = d.clock().toISOString();
  const m: Message = { kind: 'test', title: `Kade: ${TITLES.test('')}`, message: `A test message from Kade, sent ${at}.`, subject: 'test', at };
  const channels = d.repo.channels().filter((c) => c.enabled);
  const results = await track(n, Promise.all(channels.map((c) => deliver(n, c, m))));
  return {
    results: results.map((r, i) => {
      const c = channels[i] as StoredChannel;
      return { channel: c.id, kind: c.kind, ok: r.ok, ...(r.status !== undefined ? { status: r.status } : {}), ...(r.error ? { error: r.error } : {}) };
    }),
  };
}

export function createNotifier(d: NotifierDeps) {
  const n: Sending = { d, resolve: d.resolve ?? ((c: StoredChannel) => c), pending: new Set() };
  return {
    request: (r: NotifyRequest) => request(n, r),
    /** Subscribes to the bus: every `notify.<kind>` event and the mapped backup events become requests. */
    subscribe(events: EventBus): () => void {
      return events.subscribe((e) => {
        const r = requestOf(e);
        if (r) request(n, r);
      });
    },
    /** One test message to every enabled channel, whatever the rules; what each answered. */
    test: (): Promise<TestResultsT> => sendTest(n),
    /** Waits for sends under way (tests and a clean shutdown). */
    async idle(): Promise<void> {
      while (n.pending.size > 0) await Promise.allSettled([...n.pending]);
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;

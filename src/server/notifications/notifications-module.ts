/**
 * Notifications as Kade runs them: the store, the senders, the rules engine on the event bus, the engine's event
 * stream for stopped containers and the timers for disk space and stuck jobs. Built once by the composition root.
 */
import type { DiskStateT } from '../../shared/backups.ts';
import { SEND_TIMEOUT_MS } from '../../shared/notifications.ts';
import { errorMessage } from '../core/errors.ts';
import type { EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { Db } from '../db/db.ts';
import type { SecretBox } from '../db/secret-box.ts';
import type { Engine } from '../engine/engine.ts';
import type { JobsService } from '../jobs/jobs.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { causedByOwnOperation, createContainerWatch } from './container-watch.ts';
import { sendPush, sendWebhook } from './http-senders.ts';
import type { Message, SendResult } from './message.ts';
import { createNotificationsRepo, type NotificationsRepo, type StoredChannel } from './notifications.repo.ts';
import { createNotificationsService } from './notifications.service.ts';
import { createNotifier, type NotifyRequest, notifyEvent } from './notifier.ts';
import { diskRequest, STUCK_AFTER_MINUTES, stuckRequests } from './periodic-checks.ts';
import { type SmtpTrust, sendMail } from './smtp.ts';

export interface NotifyOptions {
  /** A job running longer counts as stuck; default STUCK_AFTER_MINUTES. */
  stuckAfterMinutes?: number;
  /** How often stuck jobs are looked for; default a minute. */
  stuckEveryMs?: number;
  /** How often the disk is checked (besides after each backup); default 5 minutes. */
  diskEveryMs?: number;
  /** How long a container stop waits for Kade's own operation to show before it counts as unexpected; default 2 s. */
  graceMs?: number;
  /** Time limit of one send; default SEND_TIMEOUT_MS. */
  sendTimeoutMs?: number;
  /** Certificates trusted for SMTP over TLS besides the system's (tests trust their self-signed server this way). */
  smtpTrust?: SmtpTrust;
}

/** Events of Kade's own changes that stop, recreate or remove containers. */
const isOwnOperation = (type: string) => type.startsWith('stack.') || type.startsWith('container.') || type === 'backup.restored';

export interface NotificationsModuleDeps {
  db: Db;
  box: SecretBox;
  events: EventBus;
  logger: Logger;
  clock: () => Date;
  engine: Pick<Engine, 'containerEvents'>;
  jobs: Pick<JobsService, 'busy' | 'list'>;
  /** The backup disk (BACKUP_DIR) with DISK_MIN_FREE_GB and DISK_WARN_PCT. */
  disk: () => DiskStateT;
  stackOfProject: (project: string) => string | null;
  settings: Pick<SettingsService, 'secret'>;
  options?: NotifyOptions;
}

/** Each channel's sender by its kind, within the time limit of one send. */
const senderOf =
  (timeoutMs: number, trust: SmtpTrust | undefined) =>
  (c: StoredChannel, m: Message): Promise<SendResult> =>
    c.kind === 'push' ? sendPush(c, m, timeoutMs) : c.kind === 'webhook' ? sendWebhook(c, m, timeoutMs) : sendMail(c, m, timeoutMs, trust);

/** NOTIFY_TOKEN and NOTIFY_EMAIL_PASSWORD of the settings serve every channel that has no secret of its own. */
const secretsOf =
  (settings: Pick<SettingsService, 'secret'>) =>
  (c: StoredChannel): StoredChannel => {
    if (c.kind !== 'email') return c.token !== null ? c : { ...c, token: settings.secret('NOTIFY_TOKEN') };
    if (!c.smtp || c.smtp.password !== null || !c.smtp.username) return c;
    return { ...c, smtp: { ...c.smtp, password: settings.secret('NOTIFY_EMAIL_PASSWORD') } };
  };

/** The stopped-container watch, its cursor kept in the notifications' state table. */
function watchOf(d: NotificationsModuleDeps, repo: NotificationsRepo, log: Logger, emit: (r: NotifyRequest) => void, ownOps: ReadonlyMap<string, number>) {
  // Kade's own stop: its job holds the app's slot, or its operation on the app or the container ended just after the stop.
  const expected = (stack: string, container: string, atMs: number): boolean =>
    d.jobs.busy(stack) || causedByOwnOperation([ownOps.get(stack), ownOps.get(container)], atMs);
  const graceMs = d.options?.graceMs;
  return createContainerWatch({
    engine: d.engine,
    stackOfProject: d.stackOfProject,
    expected,
    emit,
    cursor: { get: () => repo.state('_engine', 'events_cursor'), set: (v) => repo.setState('_engine', 'events_cursor', v, d.clock().toISOString()) },
    logger: log,
    clock: d.clock,
    ...(graceMs !== undefined ? { graceMs } : {}),
  });
}

export function createNotificationsModule(d: NotificationsModuleDeps) {
  const o = d.options ?? {};
  const stuckAfterMinutes = o.stuckAfterMinutes ?? STUCK_AFTER_MINUTES;
  const repo = createNotificationsRepo(d.db, d.box);
  const log = d.logger.child({ module: 'notifications' });
  const send = senderOf(o.sendTimeoutMs ?? SEND_TIMEOUT_MS, o.smtpTrust);
  const notifier = createNotifier({ repo, send, resolve: secretsOf(d.settings), logger: log, clock: d.clock });
  const service = createNotificationsService({ repo, notifier, events: d.events, stuckAfterMinutes });
  const emit = (r: NotifyRequest) => d.events.emit(notifyEvent(r));
  const ownOps = new Map<string, number>();
  const watch = watchOf(d, repo, log, emit, ownOps);

  function checkDisk(): void {
    try {
      emit(diskRequest(d.disk()));
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'disk space not checked');
    }
  }
  function checkStuck(): void {
    for (const r of stuckRequests(d.jobs.list(200), d.clock(), stuckAfterMinutes)) emit(r);
  }

  const unsubscribe = [
    notifier.subscribe(d.events),
    d.events.subscribe((e) => {
      if (isOwnOperation(e.type) && e.target) ownOps.set(e.target, d.clock().getTime());
      if (e.type === 'backup.created' || e.type === 'backup.failed') checkDisk();
    }),
  ];
  let timers: NodeJS.Timeout[] = [];

  return {
    service,
    notifier,
    checkDisk,
    checkStuck,
    start(): void {
      watch.start();
      checkDisk();
      timers = [setInterval(checkDisk, o.diskEveryMs ?? 5 * 60_000).unref(), setInterval(checkStuck, o.stuckEveryMs ?? 60_000).unref()];
    },
    /** Stops the stream and the timers and waits for sends under way. */
    async stop(): Promise<void> {
      for (const t of timers) clearInterval(t);
      timers = [];
      // The stream first: a stop decided while closing still reaches the notifier.
      await watch.stop();
      for (const u of unsubscribe) u();
      await notifier.idle();
    },
    /** Waits for container decisions and sends under way (tests). */
    async idle(): Promise<void> {
      await watch.idle();
      await notifier.idle();
    },
  };
}

export type NotificationsModule = ReturnType<typeof createNotificationsModule>;

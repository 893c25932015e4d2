import type { EventBus } from '../core/events.ts';
import type { Db } from '../db/db.ts';

/** Every domain event becomes an audit row; the action is the event's last word unless it names one. */
export function createAuditSubscriber(db: Db, events: EventBus, clock: () => Date): void {
  const insert = db.prepare('INSERT INTO audit (at, user_name, ip, source, action, target, status, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  events.subscribe((e) => {
    const action = typeof e.detail?.action === 'string' ? e.detail.action : e.type;
    insert.run(
      clock().toISOString(),
      e.actor?.user ?? null,
      e.actor?.ip ?? null,
      e.source,
      action,
      e.target ?? null,
      e.status,
      e.detail ? JSON.stringify(e.detail) : null,
    );
  });
}

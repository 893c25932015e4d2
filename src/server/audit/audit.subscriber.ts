import type { DomainEvent, EventBus } from '../core/events.ts';
import { auditAction } from './actions.ts';
import type { AuditRepo, AuditRow } from './audit.repo.ts';
import { safeDetail } from './redact.ts';

/**
 * The row an event becomes. An anonymous event (a failed login) has no actor, so its client address
 * travels in `detail.ip` and is moved to the ip column, where filters and the free text find it.
 */
export function auditRowOf(e: DomainEvent, at: Date): AuditRow {
  const detailIp = !e.actor && typeof e.detail?.ip === 'string' ? e.detail.ip : null;
  const action = auditAction(e.type);
  // Events named their verb in `detail.action` before the mapping table; once in the column it is noise.
  const moved = [detailIp !== null ? 'ip' : '', e.detail?.action === action ? 'action' : ''];
  return {
    at: at.toISOString(),
    user: e.actor?.user ?? null,
    ip: e.actor?.ip ?? detailIp,
    source: e.source,
    action,
    target: e.target ?? null,
    status: e.status,
    detail: safeDetail(e.detail, moved),
  };
}

/**
 * Every domain event becomes an audit row. A failed write throws into the event bus, which logs it
 * and carries on, so the operation that emitted the event never fails because of the audit log.
 */
export function createAuditSubscriber(repo: AuditRepo, events: EventBus, clock: () => Date): () => void {
  // `notify.*` events ask the notifier for a message (a disk check every few minutes); nobody did anything.
  return events.subscribe((e) => e.source !== 'notify' && repo.insert(auditRowOf(e, clock())));
}

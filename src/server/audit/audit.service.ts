import type { AuditAnswerT, AuditQueryT } from '../../shared/audit.ts';
import { AUDIT_FACETS, type AuditPeriod } from '../../shared/audit-values.ts';
import { requireRole } from '../core/authorize.ts';
import type { Actor } from '../core/events.ts';
import type { AuditFilter, AuditRepo } from './audit.repo.ts';

const HOUR = 3600_000;
const PERIOD_MS: Record<AuditPeriod, number> = { '24h': 24 * HOUR, '7d': 7 * 24 * HOUR, '30d': 30 * 24 * HOUR };
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** A moment from the query as a UTC ISO string; a bare date means its start, or with `endOfDay` the next day's start. */
function moment(value: string, endOfDay: boolean): string {
  const d = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  if (DATE_ONLY.test(value) && endOfDay) d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

const later = (a: string | undefined, b: string | undefined) => (a === undefined ? b : b === undefined || a > b ? a : b);

/**
 * The query's period as stored-format bounds: the preset counts back from `now`, and when `from` is
 * given as well the later of the two starts wins, so both narrow the result.
 */
export function periodBounds(q: Pick<AuditQueryT, 'period' | 'from' | 'to'>, now: Date): { from?: string; to?: string } {
  const preset = q.period ? new Date(now.getTime() - PERIOD_MS[q.period]).toISOString() : undefined;
  const from = later(q.from === undefined ? undefined : moment(q.from, false), preset);
  const to = q.to === undefined ? undefined : moment(q.to, true);
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/** Reading the audit log: admins only, also when called from somewhere other than HTTP. */
export function createAuditService(deps: { repo: AuditRepo; clock: () => Date }) {
  const { repo, clock } = deps;
  return {
    list(actor: Actor, q: AuditQueryT): AuditAnswerT {
      requireRole(actor, 'admin', 'the audit log');
      const text = q.q?.trim();
      const filter: AuditFilter = { source: q.source, action: q.action, status: q.status, user: q.user, text: text || undefined, ...periodBounds(q, clock()) };
      const page = repo.search(filter, { limit: q.limit, offset: q.offset });
      const facets = Object.fromEntries(AUDIT_FACETS.map((f) => [f, repo.facet(filter, f)])) as AuditAnswerT['facets'];
      return { ...page, unfiltered_total: repo.count(), limit: q.limit, offset: q.offset, facets };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;

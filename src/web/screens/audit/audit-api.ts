import type { AuditAnswerT } from '../../../shared/audit.ts';
import { AUDIT_PERIODS, type AuditPeriod } from '../../../shared/audit-values.ts';
import { request } from '../../api.ts';

/** The filter controls' values; an empty string means 'no filter'. */
export interface AuditFilters {
  source: string;
  action: string;
  status: string;
  user: string;
  period: AuditPeriod | '';
  q: string;
}

export const NO_FILTERS: AuditFilters = { source: '', action: '', status: '', user: '', period: '', q: '' };
export const PAGE_SIZE = 50;

const KEYS = Object.keys(NO_FILTERS) as (keyof AuditFilters)[];

export const hasFilters = (f: AuditFilters): boolean => KEYS.some((k) => f[k].trim() !== '');

/** Filters and paging as a query string, leaving out what is empty; also used for the page address. */
export function toSearch(f: AuditFilters, offset: number): string {
  const p = new URLSearchParams();
  for (const k of KEYS) if (f[k].trim() !== '') p.set(k, f[k].trim());
  if (offset > 0) p.set('offset', String(offset));
  return p.toString();
}

/** The filters of a page address, so a reload or a shared link shows the same selection. */
export function fromSearch(search: string): { filters: AuditFilters; offset: number } {
  const p = new URLSearchParams(search);
  const period = p.get('period') ?? '';
  const offset = Number.parseInt(p.get('offset') ?? '0', 10);
  return {
    filters: {
      source: p.get('source') ?? '',
      action: p.get('action') ?? '',
      status: p.get('status') ?? '',
      user: p.get('user') ?? '',
      period: (AUDIT_PERIODS as readonly string[]).includes(period) ? (period as AuditPeriod) : '',
      q: p.get('q') ?? '',
    },
    offset: Number.isFinite(offset) && offset > 0 ? offset : 0,
  };
}

export function fetchAudit(f: AuditFilters, offset: number): Promise<AuditAnswerT> {
  const search = toSearch(f, offset);
  return request<AuditAnswerT>('GET', `/api/audit?limit=${PAGE_SIZE}${search ? `&${search}` : ''}`);
}

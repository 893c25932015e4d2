import type Database from 'better-sqlite3';
import type { AuditEntryT, AuditFacetValueT } from '../../shared/audit.ts';
import type { AuditFacet } from '../../shared/audit-values.ts';
import type { Db } from '../db/db.ts';

export interface AuditRow {
  at: string;
  user: string | null;
  ip: string | null;
  source: string;
  action: string;
  target: string | null;
  status: 'ok' | 'failed';
  detail: Record<string, string | number | boolean> | null;
}

/** Filters with the period already turned into ISO moments (`from` inclusive, `to` exclusive). */
export interface AuditFilter {
  source?: string | undefined;
  action?: string | undefined;
  status?: string | undefined;
  user?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  text?: string | undefined;
}

interface DbRow {
  id: number;
  at: string;
  user_name: string | null;
  ip: string | null;
  source: string;
  action: string;
  target: string | null;
  status: 'ok' | 'failed';
  detail: string | null;
}

// Column names come only from this table, never from input; every value is a bound parameter.
const FACET_COLUMN: Record<AuditFacet, string> = { source: 'source', action: 'action', status: 'status', user: 'user_name' };
const TEXT_COLUMNS = ['user_name', 'ip', 'target', 'action', 'detail'];
const FACET_LIMIT = 100;

type Param = string | number;

/** `%`, `_` and the escape character itself match literally in a LIKE with ESCAPE '\'. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** The WHERE clause of a filter; `omit` leaves one facet out, for that facet's own counts. */
function where(f: AuditFilter, omit?: AuditFacet): { sql: string; params: Param[] } {
  const parts: string[] = [];
  const params: Param[] = [];
  for (const facet of Object.keys(FACET_COLUMN) as AuditFacet[]) {
    const value = f[facet];
    if (facet === omit || value === undefined) continue;
    parts.push(`${FACET_COLUMN[facet]} = ?`);
    params.push(value);
  }
  if (f.from !== undefined) {
    parts.push('at >= ?');
    params.push(f.from);
  }
  if (f.to !== undefined) {
    parts.push('at < ?');
    params.push(f.to);
  }
  const text = f.text;
  if (text) {
    parts.push(`(${TEXT_COLUMNS.map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
    params.push(...TEXT_COLUMNS.map(() => `%${escapeLike(text)}%`));
  }
  return { sql: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', params };
}

function parseDetail(text: string | null): AuditEntryT['detail'] {
  if (text === null) return null;
  try {
    return JSON.parse(text) as AuditEntryT['detail'];
  } catch {
    // Only this module writes the column; a row that does not parse is shown without detail.
    return null;
  }
}

const toEntry = (r: DbRow): AuditEntryT => ({
  id: r.id,
  at: r.at,
  user: r.user_name,
  ip: r.ip,
  source: r.source,
  action: r.action,
  target: r.target,
  status: r.status,
  detail: parseDetail(r.detail),
});

/** The audit table: written by the subscriber, searched by the audit service. */
export function createAuditRepo(db: Db) {
  const insert = db.prepare('INSERT INTO audit (at, user_name, ip, source, action, target, status, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const countAll = db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM audit');
  // The filters combine into a bounded number of statement shapes; each is prepared once.
  const cache = new Map<string, Database.Statement<Param[]>>();
  const stmt = (sql: string) => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare<Param[]>(sql);
      cache.set(sql, s);
    }
    return s;
  };

  return {
    insert(r: AuditRow): void {
      insert.run(r.at, r.user, r.ip, r.source, r.action, r.target, r.status, r.detail ? JSON.stringify(r.detail) : null);
    },

    /** One page of matching entries, newest first, and how many match in all. */
    search(f: AuditFilter, page: { limit: number; offset: number }): { entries: AuditEntryT[]; total: number } {
      const w = where(f);
      const rows = stmt(`SELECT * FROM audit ${w.sql} ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`).all(...w.params, page.limit, page.offset) as DbRow[];
      const total = (stmt(`SELECT COUNT(*) AS n FROM audit ${w.sql}`).get(...w.params) as { n: number }).n;
      return { entries: rows.map(toEntry), total };
    },

    /** Values of one facet with counts, over the filter without that facet's own choice. */
    facet(f: AuditFilter, facet: AuditFacet): AuditFacetValueT[] {
      const col = FACET_COLUMN[facet];
      const w = where(f, facet);
      const nonNull = w.sql ? `${w.sql} AND ${col} IS NOT NULL` : `WHERE ${col} IS NOT NULL`;
      const sql = `SELECT ${col} AS value, COUNT(*) AS count FROM audit ${nonNull} GROUP BY ${col} ORDER BY count DESC, value LIMIT ${FACET_LIMIT}`;
      return stmt(sql).all(...w.params) as AuditFacetValueT[];
    },

    count: (): number => countAll.get()?.n ?? 0,
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;

/**
 * Fixed values of the audit log API, without zod: the interface imports these at run time, and
 * zod's eval probe would trip the page's Content-Security-Policy.
 */

/** Period presets, counted back from the moment of the request. */
export const AUDIT_PERIODS = ['24h', '7d', '30d'] as const;
export type AuditPeriod = (typeof AUDIT_PERIODS)[number];

export const AUDIT_STATUSES = ['ok', 'failed'] as const;

/** The filters that have facet lists; each names a column of the log. */
export const AUDIT_FACETS = ['source', 'action', 'status', 'user'] as const;
export type AuditFacet = (typeof AUDIT_FACETS)[number];

export const AUDIT_MAX_LIMIT = 200;
export const AUDIT_DEFAULT_LIMIT = 50;

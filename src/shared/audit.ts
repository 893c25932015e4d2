/** Shapes of the audit log API (`GET /api/audit`): validated by the server, typed for the interface. */
import { z } from 'zod';
import { AUDIT_DEFAULT_LIMIT, AUDIT_MAX_LIMIT, AUDIT_PERIODS, AUDIT_STATUSES } from './audit-values.ts';

// A day (the whole day, in UTC) or an exact moment with its offset.
const Moment = z.union([z.iso.date(), z.iso.datetime({ offset: true })]);
const Word = z.string().trim().min(1).max(100);

export const AuditQuery = z.object({
  source: Word.optional(),
  action: Word.optional(),
  status: z.enum(AUDIT_STATUSES).optional(),
  user: Word.optional(),
  period: z.enum(AUDIT_PERIODS).optional().describe('Only entries of the last 24 hours, 7 or 30 days; combines with from/to'),
  from: Moment.optional().describe('Entries at or after this moment; a date means the start of that day (UTC)'),
  to: Moment.optional().describe('Entries before this moment; a date includes that whole day (UTC)'),
  q: z.string().max(200).optional().describe('Free text, matched case-insensitively in user, IP, target, action and detail'),
  limit: z.coerce.number().int().min(1).max(AUDIT_MAX_LIMIT).default(AUDIT_DEFAULT_LIMIT),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const AuditEntry = z.object({
  id: z.number().int(),
  at: z.string().describe('ISO 8601, UTC'),
  user: z.string().nullable().describe('Who acted; null for an anonymous attempt such as a failed login'),
  ip: z.string().nullable(),
  source: z.string(),
  action: z.string().describe('Short snake_case verb, e.g. login, install, edit, start'),
  target: z.string().nullable(),
  status: z.enum(AUDIT_STATUSES),
  detail: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable(),
});

export const AuditFacetValue = z.object({ value: z.string(), count: z.number().int() });

export const AuditAnswer = z.object({
  entries: z.array(AuditEntry),
  total: z.number().int().describe('Entries that match the filters'),
  unfiltered_total: z.number().int().describe('Entries in the whole log, so an empty answer can say why it is empty'),
  limit: z.number().int(),
  offset: z.number().int(),
  facets: z
    .object({
      source: z.array(AuditFacetValue),
      action: z.array(AuditFacetValue),
      status: z.array(AuditFacetValue),
      user: z.array(AuditFacetValue),
    })
    .describe('Per filter the values with counts, counted over all other current filters (but not its own), most frequent first, at most 100'),
});

export type AuditQueryT = z.infer<typeof AuditQuery>;
export type AuditEntryT = z.infer<typeof AuditEntry>;
export type AuditAnswerT = z.infer<typeof AuditAnswer>;
export type AuditFacetValueT = z.infer<typeof AuditFacetValue>;

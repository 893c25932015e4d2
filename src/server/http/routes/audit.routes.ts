import type { OpenAPIHono } from '@hono/zod-openapi';
import { AuditAnswer, AuditQuery } from '../../../shared/audit.ts';
import type { AuditService } from '../../audit/audit.service.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { defineRoute, json, PROBLEMS } from '../route.ts';

const list = defineRoute('admin', {
  method: 'get',
  path: '/api/audit',
  tags: ['audit'],
  summary: 'Audit log entries, newest first, with the values (and counts) each filter can take',
  description:
    'Filters combine with AND. Each facet list is counted over all current filters except its own, ' +
    'so the other values of that filter stay visible with the number of entries choosing them would give.',
  request: { query: AuditQuery },
  responses: { 200: json(AuditAnswer), ...PROBLEMS },
});

export function auditRoutes(app: OpenAPIHono<AppEnv>, audit: AuditService): void {
  app.openapi(list, (c) => c.json(audit.list(actorOf(c), c.req.valid('query')), 200));
}

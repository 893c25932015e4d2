import type { OpenAPIHono } from '@hono/zod-openapi';
import { AuditAnswer, AuditQuery } from '../../../shared/audit.ts';
import type { AuditService } from '../../audit/audit.service.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { routeGroup } from '../route.ts';

const { get } = routeGroup('audit');

const list = get('/api/audit', 'admin', { query: AuditQuery, 200: AuditAnswer }).summary(
  'Audit log entries, newest first, with the values (and counts) each filter can take',
  'Filters combine with AND. Each facet list is counted over all current filters except its own, ' +
    'so the other values of that filter stay visible with the number of entries choosing them would give.',
);

export function auditRoutes(app: OpenAPIHono<AppEnv>, audit: AuditService): void {
  app.openapi(list, (c) => c.json(audit.list(actorOf(c), c.req.valid('query')), 200));
}

import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { CONTAINER_ID_PATTERN, ConnectableApp, ContainerEntry, Problem } from '../../../shared/api.ts';
import type { ContainerOp, LogQuery } from '../../containers/containers.service.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { json, NameParam, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';
import { FOLLOW_LIMITS, type FollowLimits, lineFeed, SLOW_READER_DOC, sseFollow } from '../sse.ts';

const IdParam = z.object({ id: z.string().regex(CONTAINER_ID_PATTERN, 'a container id or name') });
const LogParams = z.object({
  tail: z.coerce.number().int().min(0).max(100_000).default(200),
  since: z.iso.datetime({ offset: true }).optional(),
  follow: z.enum(['0', '1']).optional(),
});
const logAnswer = {
  description: `plain text; with follow=1 a text/event-stream of \`line\` events and a final \`end\` (empty data). For non-admins the app's secrets and the containers' environment values (6 characters or more) read \`•••\`. ${SLOW_READER_DOC}`,
  content: { 'text/plain': { schema: z.string() }, 'text/event-stream': { schema: z.string() } },
};
const NOT_FOUND = { 404: { description: 'unknown container or app', content: { 'application/problem+json': { schema: Problem } } } };
const DONE = { 204: { description: 'done' } };

const { get, post, delete: del } = routeGroup('containers');
const { get: stacksGet } = routeGroup('stacks');

const list = get('/api/containers', 'viewer', { 200: z.array(ContainerEntry) }).summary(
  'Every container on the host with the managed and own flags; one engine listing',
);
const inspect = get('/api/containers/{id}', 'viewer', { params: IdParam, 200: json(z.record(z.string(), z.unknown())), ...NOT_FOUND }).summary(
  "The engine's inspect of one container (environment values for admins only)",
);
const opRoute = (op: ContainerOp) =>
  post(`/api/containers/{id}/${op}`, 'operator', { params: IdParam, ...DONE, ...NOT_FOUND }).summary(
    `${op[0]?.toUpperCase()}${op.slice(1)} a container${op === 'start' ? '' : "; refused 403 own_container for Kade's own"}`,
  );
const remove = del('/api/containers/{id}', 'operator', { params: IdParam, ...DONE, ...NOT_FOUND }).summary(
  "Remove a container only (forced): its volumes and image stay; refused 403 own_container for Kade's own",
);
const logs = get('/api/containers/{id}/logs', 'viewer', { params: IdParam, query: LogParams, 200: logAnswer, ...NOT_FOUND }).summary(
  'Container log: the last `tail` lines (default 200), from `since` on; follow=1 streams',
);
const stackLogs = stacksGet('/api/stacks/{name}/logs', 'viewer', { params: NameParam, query: LogParams, 200: logAnswer, ...NOT_FOUND }).summary(
  'Logs of all containers of an app in time order, each line prefixed with its service; follow=1 streams',
);
const connectable = stacksGet('/api/apps/connectable', 'viewer', { 200: z.array(ConnectableApp) }).summary(
  'Installed apps with the names of their containers; one container listing',
);

const logQuery = (q: z.infer<typeof LogParams>): LogQuery => ({ tail: q.tail, ...(q.since ? { since: new Date(q.since) } : {}) });

export function containersRoutes(app: OpenAPIHono<AppEnv>, s: Services, limits: FollowLimits = FOLLOW_LIMITS): void {
  app.openapi(list, async (c) => c.json(await s.containers.list(actorOf(c)), 200));
  app.openapi(inspect, async (c) => c.json(await s.containers.inspect(actorOf(c), c.req.valid('param').id), 200));
  for (const op of ['start', 'stop', 'restart'] as const) {
    app.openapi(opRoute(op), async (c) => {
      await s.containers.operate(actorOf(c), c.req.valid('param').id, op);
      return c.body(null, 204);
    });
  }
  app.openapi(remove, async (c) => {
    await s.containers.remove(actorOf(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  app.openapi(logs, async (c) => {
    const { id } = c.req.valid('param');
    const q = c.req.valid('query');
    if (q.follow === '1') return sseFollow(c, lineFeed(await s.containers.followLogs(actorOf(c), id, logQuery(q))), limits) as never;
    return c.text(await s.containers.logText(actorOf(c), id, logQuery(q)), 200) as never;
  });
  app.openapi(stackLogs, async (c) => {
    const { name } = c.req.valid('param');
    const q = c.req.valid('query');
    if (q.follow === '1') return sseFollow(c, lineFeed(await s.containers.followStackLogs(actorOf(c), name, logQuery(q))), limits) as never;
    return c.text(await s.containers.stackLogText(actorOf(c), name, logQuery(q)), 200) as never;
  });
  app.openapi(connectable, async (c) => c.json(await s.containers.connectable(actorOf(c)), 200));
}

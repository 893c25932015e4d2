import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { JobAccepted, Stack, StackDetail } from '../../../shared/api.ts';
import type { StackOp } from '../../stacks/stacks.service.ts';
import { type AppEnv, actorOf, hostOf } from '../context.ts';
import { NameParam, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { get, post, delete: del } = routeGroup('stacks');

const list = get('/api/stacks', 'viewer', { 200: z.array(Stack) }).summary('Installed apps; one container listing serves the whole list');
const one = get('/api/stacks/{name}', 'viewer', { params: NameParam, 200: StackDetail }).summary('One app with its containers');
const opRoute = (op: StackOp) =>
  post(`/api/stacks/{name}/${op}`, 'operator', { params: NameParam, 202: JobAccepted }).summary(`${op[0]?.toUpperCase()}${op.slice(1)} an app (job)`);
const remove = del('/api/stacks/{name}', 'operator', {
  params: NameParam,
  query: z.object({ remove_data: z.enum(['0', '1']).optional(), backup: z.enum(['0', '1']).optional() }),
  202: JobAccepted,
}).summary(
  'Remove an app: containers and folder; remove_data=1 also its app data (job); backup=1 backs it up first (a failed backup is a warning in the job log and the delete goes on)',
);

export function stacksRoutes(app: OpenAPIHono<AppEnv>, s: Services): void {
  // The same bytes for every answer while nothing changed (stacks.listJson); the document still declares the schema.
  // The cast: the typed route expects c.json(); these bytes are the same JSON, serialised ahead.
  app.openapi(list, async (c) => c.body(await s.stacks.listJson(hostOf(c)), 200, { 'Content-Type': 'application/json' }) as never);
  app.openapi(one, async (c) => c.json(await s.stacks.get(c.req.valid('param').name, hostOf(c)), 200));
  for (const op of ['start', 'stop', 'restart'] as const) {
    app.openapi(opRoute(op), (c) => c.json({ job: s.stacks.operate(actorOf(c), c.req.valid('param').name, op) }, 202));
  }
  app.openapi(remove, (c) => {
    const q = c.req.valid('query');
    return c.json({ job: s.stacks.remove(actorOf(c), c.req.valid('param').name, { removeData: q.remove_data === '1', backup: q.backup === '1' }) }, 202);
  });
}

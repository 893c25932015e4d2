import type { OpenAPIHono } from '@hono/zod-openapi';
import { JobAccepted, StackUpdateCheck } from '../../../shared/api.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { NameParam, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { post } = routeGroup('stacks');

const update = post('/api/stacks/{name}/update', 'operator', { params: NameParam, 202: JobAccepted }).summary(
  'Update an app: backup first, pull its images, recreate the containers (job)',
);
const check = post('/api/stacks/{name}/update-check', 'operator', { params: NameParam, 200: StackUpdateCheck }).summary(
  'Ask the registries now whether the images of an app have an update; the list shows the result with its time',
);

const checkAll = post('/api/stacks/update-check', 'operator', { 202: JobAccepted }).summary(
  'Ask the registries now about the images of every app (job; while one runs, that job is answered)',
);

export function updatesRoutes(app: OpenAPIHono<AppEnv>, s: Services): void {
  app.openapi(update, (c) => c.json({ job: s.updates.update(actorOf(c), c.req.valid('param').name) }, 202));
  app.openapi(checkAll, (c) => c.json({ job: s.updates.checkAll(actorOf(c)) }, 202));
  app.openapi(check, async (c) => c.json(await s.updates.check(actorOf(c), c.req.valid('param').name), 200));
}

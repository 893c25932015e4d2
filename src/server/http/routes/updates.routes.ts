import type { OpenAPIHono } from '@hono/zod-openapi';
import { JobAccepted, StackUpdateCheck } from '../../../shared/api.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { defineRoute, json, NameParam, PROBLEMS } from '../route.ts';
import type { Services } from '../services.ts';

const update = defineRoute('operator', {
  method: 'post',
  path: '/api/stacks/{name}/update',
  tags: ['stacks'],
  summary: 'Update an app: backup first, pull its images, recreate the containers (job)',
  request: { params: NameParam },
  responses: { 202: json(JobAccepted), ...PROBLEMS },
});
const check = defineRoute('operator', {
  method: 'post',
  path: '/api/stacks/{name}/update-check',
  tags: ['stacks'],
  summary: 'Ask the registries now whether the images of an app have an update; the list shows the result with its time',
  request: { params: NameParam },
  responses: { 200: json(StackUpdateCheck), ...PROBLEMS },
});

const checkAll = defineRoute('operator', {
  method: 'post',
  path: '/api/stacks/update-check',
  tags: ['stacks'],
  summary: 'Ask the registries now about the images of every app (job; while one runs, that job is answered)',
  responses: { 202: json(JobAccepted), ...PROBLEMS },
});

export function updatesRoutes(app: OpenAPIHono<AppEnv>, s: Services): void {
  app.openapi(update, (c) => c.json({ job: s.updates.update(actorOf(c), c.req.valid('param').name) }, 202));
  app.openapi(checkAll, (c) => c.json({ job: s.updates.checkAll(actorOf(c)) }, 202));
  app.openapi(check, async (c) => c.json(await s.updates.check(actorOf(c), c.req.valid('param').name), 200));
}

import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { JobAccepted } from '../../../shared/api.ts';
import { SelfUpdateStatus } from '../../../shared/self-update.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { PROBLEMS, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

/** 409: updating is impossible here, Kade is the newest on its channel, or there is no previous version. */
const REFUSED = { 409: { ...PROBLEMS[400], description: 'impossible now; detail says why' } };

const { get, post } = routeGroup('system');

const status = get('/api/update', 'admin', { query: z.object({ force: z.enum(['0', '1']).optional() }), 200: SelfUpdateStatus }).summary(
  "Kade's own update: the running and the newest version on the channel (UPDATE_CHANNEL), cached one hour (force=1 asks the registry now), whether updating is possible and why not, the tag a rollback returns to and the update helper's last result",
);
const update = post('/api/update', 'admin', { 202: JobAccepted, ...REFUSED }).summary(
  'Update Kade to the newest version on its channel (job): the image is pulled, then a helper container on it writes SVC_TAG to .env and recreates Kade; a new Kade that does not answer /healthz is rolled back by the helper. 409 conflict when impossible or already the newest',
);
const rollback = post('/api/update/rollback', 'admin', { 202: JobAccepted, ...REFUSED }).summary(
  'Put Kade back on the tag the last update came from (job, same route as the update); 409 conflict when there is none',
);

export function selfUpdateRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'selfUpdate'>): void {
  app.openapi(status, async (c) => c.json(await s.selfUpdate.status(actorOf(c), { force: c.req.valid('query').force === '1' }), 200));
  app.openapi(update, async (c) => c.json({ job: await s.selfUpdate.update(actorOf(c)) }, 202));
  app.openapi(rollback, async (c) => c.json({ job: await s.selfUpdate.rollback(actorOf(c)) }, 202));
}

import type { OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import { Job, JobLog, type JobT } from '../../../shared/api.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { Actor } from '../../core/events.ts';
import type { JobsService } from '../../jobs/jobs.service.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { defineRoute, json, PROBLEMS } from '../route.ts';

const IdParam = z.object({ id: z.string().max(64) });

const list = defineRoute('viewer', {
  method: 'get',
  path: '/api/jobs',
  tags: ['jobs'],
  summary: 'Recent jobs, newest first',
  responses: { 200: json(z.array(Job)), ...PROBLEMS },
});
const one = defineRoute('viewer', {
  method: 'get',
  path: '/api/jobs/{id}',
  tags: ['jobs'],
  summary: 'One job',
  request: { params: IdParam },
  responses: { 200: json(Job), ...PROBLEMS },
});
const log = defineRoute('viewer', {
  method: 'get',
  path: '/api/jobs/{id}/log',
  tags: ['jobs'],
  summary: 'Log lines from an offset on; with follow=1 a text/event-stream of lines',
  request: {
    params: IdParam,
    query: z.object({ offset: z.coerce.number().int().min(0).default(0), follow: z.enum(['0', '1']).optional() }),
  },
  responses: { 200: json(JobLog), ...PROBLEMS },
});

/** Users and client addresses are personal data: only admins see who started a job and from where. */
function present(actor: Actor, job: JobT): JobT {
  if (roleAllows(actor.role, 'admin')) return job;
  const { user: _user, ip: _ip, ...rest } = job;
  return rest;
}

export function jobsRoutes(app: OpenAPIHono<AppEnv>, jobs: JobsService): void {
  app.openapi(list, (c) =>
    c.json(
      jobs.list().map((j) => present(actorOf(c), j)),
      200,
    ),
  );
  app.openapi(one, (c) => c.json(present(actorOf(c), jobs.get(c.req.valid('param').id)), 200));
  app.openapi(log, (c) => {
    const { id } = c.req.valid('param');
    const { offset, follow } = c.req.valid('query');
    if (follow !== '1') return c.json(jobs.readLog(id, offset), 200);
    jobs.get(id);
    return streamSSE(c, async (stream) => {
      let next = offset;
      let wake: () => void = () => undefined;
      const unwatch = jobs.watch(id, () => wake());
      stream.onAbort(() => wake());
      try {
        while (!stream.aborted) {
          const chunk = jobs.readLog(id, next);
          for (const line of chunk.lines) await stream.writeSSE({ event: 'line', data: line, id: String(++next) });
          if (chunk.done) {
            await stream.writeSSE({ event: 'end', data: jobs.get(id).state });
            break;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            setTimeout(resolve, 15_000);
          });
        }
      } finally {
        unwatch();
      }
    }) as never;
  });
}

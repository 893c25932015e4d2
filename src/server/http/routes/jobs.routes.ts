import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { Job, JobFacets, JobLog, JobQuery, type JobT } from '../../../shared/api.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { Actor } from '../../core/events.ts';
import type { JobsService } from '../../jobs/jobs.service.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { routeGroup } from '../route.ts';
import { FOLLOW_LIMITS, type FollowLimits, SLOW_READER_DOC, type SseEvent, type SseFeed, sseFollow } from '../sse.ts';

const IdParam = z.object({ id: z.string().max(64) });

const { get } = routeGroup('jobs');

const list = get('/api/jobs', 'viewer', { query: JobQuery, 200: z.array(Job) }).summary('Recent jobs, newest first; narrowed by app, kind and state');
const facets = get('/api/jobs/facets', 'viewer', { 200: JobFacets }).summary('The apps and kinds that have jobs (the filter choices)');
const one = get('/api/jobs/{id}', 'viewer', { params: IdParam, 200: Job }).summary('One job');
const LogQuery = z.object({ offset: z.coerce.number().int().min(0).default(0), follow: z.enum(['0', '1']).optional() });
const logAnswer = {
  description: `the lines and the next offset; with follow=1 a text/event-stream of \`line\` events (id: the next offset) and a final \`end\` with the job's state. ${SLOW_READER_DOC}`,
  content: { 'application/json': { schema: JobLog }, 'text/event-stream': { schema: z.string() } },
};
const log = get('/api/jobs/{id}/log', 'viewer', { params: IdParam, query: LogQuery, 200: logAnswer }).summary(
  'Log lines from an offset on; with follow=1 a text/event-stream of lines',
);

/** Users and client addresses are personal data: only admins see who started a job and from where. */
function present(actor: Actor, job: JobT): JobT {
  if (roleAllows(actor.role, 'admin')) return job;
  const { user: _user, ip: _ip, ...rest } = job;
  return rest;
}

/** Lines of a job's log are sent this many at a time: a long log is read out in bounded steps as the client reads. */
const LINES_PER_STEP = 500;
/** A job's log is read again at least this often, in case a change was missed. */
const RECHECK_MS = 15_000;

/** A job's log from `offset` on as events; ends with the job's state once it has ended and every line was given. */
function jobLogFeed(jobs: JobsService, id: string, offset: number): SseFeed {
  let next = offset;
  let state: 'open' | 'ended' | 'closed' = 'open';
  let wake: () => void = () => undefined;
  const unwatch = jobs.watch(id, () => wake());
  return {
    async next() {
      while (state === 'open') {
        const chunk = jobs.readLog(id, next);
        const lines = chunk.lines.slice(0, LINES_PER_STEP);
        const events: SseEvent[] = lines.map((line) => ({ event: 'line', data: line, id: String(++next) }));
        if (chunk.done && lines.length === chunk.lines.length) {
          state = 'ended';
          return [...events, { event: 'end', data: jobs.get(id).state }];
        }
        if (events.length > 0) return events;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RECHECK_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return null;
    },
    close() {
      state = 'closed';
      unwatch();
      wake();
    },
  };
}

export function jobsRoutes(app: OpenAPIHono<AppEnv>, jobs: JobsService, limits: FollowLimits = FOLLOW_LIMITS): void {
  app.openapi(list, (c) =>
    c.json(
      jobs.find(c.req.valid('query')).map((j) => present(actorOf(c), j)),
      200,
    ),
  );
  // Before /api/jobs/{id}, which would take 'facets' for an id.
  app.openapi(facets, (c) => c.json(jobs.facets(), 200));
  app.openapi(one, (c) => c.json(present(actorOf(c), jobs.get(c.req.valid('param').id)), 200));
  app.openapi(log, (c) => {
    const { id } = c.req.valid('param');
    const { offset, follow } = c.req.valid('query');
    if (follow !== '1') return c.json(jobs.readLog(id, offset), 200);
    jobs.get(id);
    return sseFollow(c, jobLogFeed(jobs, id, offset), limits) as never;
  });
}

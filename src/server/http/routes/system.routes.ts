import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { Health, JobAccepted } from '../../../shared/api.ts';
import { DoctorReport } from '../../../shared/doctor.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { PROBLEMS, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { get, post } = routeGroup('system');

const health = get('/healthz', 'public', { 200: Health, problems: false }).summary('Liveness and version; asks nothing of the engine');

const EngineCheck = z.object({
  reachable: z.boolean(),
  version: z.string().nullable(),
  api_version: z.string().nullable(),
  compose: z.enum(['v2', 'v1']).nullable(),
  error: z.string().nullable(),
  /** The engine socket's group (read from the socket) and whether Kade's process has it; null over tcp. */
  socket_group: z
    .object({ socket: z.string(), gid: z.number().int().nullable(), name: z.string().nullable(), member: z.boolean(), error: z.string().nullable() })
    .nullable(),
});
const engineCheck = get('/api/engine/check', 'viewer', { 200: EngineCheck }).summary(
  "Whether the engine answers, its version, the compose variant found, and the engine socket's group",
);

const engineRestart = post('/api/engine/restart', 'admin', { 202: JobAccepted, 409: PROBLEMS[400] }).summary(
  "Restart the container engine (job): where the host's PID 1 is systemd with a docker.service unit, a privileged helper container asks systemd for the restart and the job waits until the engine answers again. Elsewhere 409 conflict with params.reason not_systemd (params.pid1 names PID 1) or no_unit, saying why",
);

const doctor = get('/api/doctor', 'admin', { 200: DoctorReport }).summary(
  "What is wrong with Kade's installation and the command that fixes each finding (install.sh --doctor asks the same)",
);

export function systemRoutes(app: OpenAPIHono<AppEnv>, version: string, services: Pick<Services, 'engineCheck' | 'doctor' | 'engineRestart'>): void {
  app.openapi(doctor, async (c) => c.json(await services.doctor.run(), 200));
  app.openapi(engineRestart, async (c) => c.json({ job: await services.engineRestart.restart(actorOf(c)) }, 202));
  app.openapi(health, (c) => c.json({ status: 'ok' as const, version }, 200));
  app.openapi(engineCheck, async (c) => c.json(await services.engineCheck.check(), 200));
}

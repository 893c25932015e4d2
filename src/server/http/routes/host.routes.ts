import type { OpenAPIHono } from '@hono/zod-openapi';
import { DeviceList, PortCheck, PortQuery } from '../../../shared/host.ts';
import type { AppEnv } from '../context.ts';
import { routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { get } = routeGroup('host');

const checkPort = get('/api/ports/check', 'viewer', { query: PortQuery, 200: PortCheck }).summary(
  'Whether a host port is free: ports published by containers (held_by names the container) and listeners on the host, read from its network namespace by a short-lived container (cached a few seconds). alternative is the next free port above it (at most 16 tried). When host_inspected is false, free is an assumption and note says so; missing_image names the probe image (SVC_PROBE_IMAGE) the engine lacks, to docker pull.',
);

const devices = get('/api/devices', 'viewer', { 200: DeviceList }).summary(
  "Serial ports (/dev/serial/by-id, ttyUSB*, ttyACM*) and video devices (/dev/v4l/by-id, video*, dri/*). by-id links survive replugging: stable, label 'vast', target the node they point to.",
);

export function hostRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'host'>): void {
  app.openapi(checkPort, async (c) => c.json(await s.host.checkPort(c.req.valid('query').port), 200));
  app.openapi(devices, async (c) => c.json(await s.host.devices(), 200));
}

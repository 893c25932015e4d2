import type { OpenAPIHono } from '@hono/zod-openapi';
import { DeviceList, PortCheck, PortQuery } from '../../../shared/host.ts';
import type { AppEnv } from '../context.ts';
import { defineRoute, json, PROBLEMS } from '../route.ts';
import type { Services } from '../services.ts';

const checkPort = defineRoute('viewer', {
  method: 'get',
  path: '/api/ports/check',
  tags: ['host'],
  summary:
    'Whether a host port is free: ports published by containers (held_by names the container) and listeners on the host, read from its network namespace by a short-lived container (cached a few seconds). alternative is the next free port above it (at most 16 tried). When host_inspected is false, free is an assumption and note says so; missing_image names the probe image (SVC_PROBE_IMAGE) the engine lacks, to docker pull.',
  request: { query: PortQuery },
  responses: { 200: json(PortCheck), ...PROBLEMS },
});

const devices = defineRoute('viewer', {
  method: 'get',
  path: '/api/devices',
  tags: ['host'],
  summary:
    "Serial ports (/dev/serial/by-id, ttyUSB*, ttyACM*) and video devices (/dev/v4l/by-id, video*, dri/*). by-id links survive replugging: stable, label 'vast', target the node they point to.",
  responses: { 200: json(DeviceList), ...PROBLEMS },
});

export function hostRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'host'>): void {
  app.openapi(checkPort, async (c) => c.json(await s.host.checkPort(c.req.valid('query').port), 200));
  app.openapi(devices, async (c) => c.json(await s.host.devices(), 200));
}

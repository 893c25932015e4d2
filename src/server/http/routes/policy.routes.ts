import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { Name } from '../../../shared/api.ts';
import { AppPowers, HostPathReview } from '../../../shared/powers.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { post } = routeGroup('catalogue');
const AppParam = z.object({ repo: Name, app: Name });
const FormValues = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({});

const powers = post('/api/store/apps/{repo}/{app}/powers', 'operator', { params: AppParam, body: z.object({ values: FormValues }), 200: AppPowers }).summary(
  'What the app would get over the host with these form values (privileged, host namespaces, capabilities, devices), rendered as the install renders it, and whether you may install it (setting ALLOW_PRIVILEGED_APPS)',
);

const hostPaths = post('/api/store/apps/{repo}/{app}/host-paths', 'operator', {
  params: AppParam,
  body: z.object({ name: z.string().max(100), values: FormValues }),
  200: HostPathReview,
}).summary(
  'The host folders the app would use with these form values that the bind policy refuses for an app of this name (outside its own data folder, its own folder and ALLOWED_HOST_DIRS), rendered as the install renders it; whether you may allow them (admins: confirm_outside_paths on the install, audited)',
);

/** The compose and bind policies' answers for the interface (compose-policy.ts, bind-policy.ts). */
export function policyRoutes(app: OpenAPIHono<AppEnv>, s: Services): void {
  app.openapi(powers, (c) => c.json(s.stacks.powers(actorOf(c), { ...c.req.valid('param'), values: c.req.valid('json').values }), 200));
  app.openapi(hostPaths, (c) => {
    const body = c.req.valid('json');
    return c.json(s.stacks.hostPaths(actorOf(c), { ...c.req.valid('param'), name: body.name, values: body.values }), 200);
  });
}

import { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import type { ProxyTrust } from '../auth/proxy-trust.ts';
import { AppError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { AppEnv } from './context.ts';
import { sessionMiddleware } from './guard.ts';
import { hostCheck } from './host-check.ts';
import { normaliseError, problemResponse } from './problem.ts';
import { auditRoutes } from './routes/audit.routes.ts';
import { authRoutes } from './routes/auth.routes.ts';
import { backupsRoutes } from './routes/backups.routes.ts';
import { catalogueRoutes } from './routes/catalogue.routes.ts';
import { containersRoutes } from './routes/containers.routes.ts';
import { hostRoutes } from './routes/host.routes.ts';
import { jobsRoutes } from './routes/jobs.routes.ts';
import { networksRoutes } from './routes/networks.routes.ts';
import { notificationsRoutes } from './routes/notifications.routes.ts';
import { policyRoutes } from './routes/policy.routes.ts';
import { selfUpdateRoutes } from './routes/self-update.routes.ts';
import { settingsRoutes } from './routes/settings.routes.ts';
import { stackConfigRoutes } from './routes/stack-config.routes.ts';
import { stacksRoutes } from './routes/stacks.routes.ts';
import { systemRoutes } from './routes/system.routes.ts';
import { updatesRoutes } from './routes/updates.routes.ts';
import { usersRoutes } from './routes/users.routes.ts';
import { wizardRoutes } from './routes/wizard.routes.ts';
import type { Services } from './services.ts';
import type { FollowLimits } from './sse.ts';
import { serveWeb } from './static.ts';

export interface HttpOptions {
  logger: Logger;
  version: string;
  webDir: string;
  prefill: { dataDir: string; uid: number; gid: number };
  /** The peer address of a request; node-server provides it, in-process tests do not. */
  peerAddress?: (req: Request, env: unknown) => string | undefined;
  /** Which peers may speak for a client through X-Forwarded-For/-Proto. */
  proxyTrust: ProxyTrust;
  /** The bind address and SVC_ALLOWED_HOSTS: the Host names accepted until setup is done. */
  hosts: { bind: string; allowed: readonly string[] };
  /** Bounds of followed log streams (tests shorten the deadlines); FOLLOW_LIMITS when not given. */
  follow?: FollowLimits;
}

/** Every API answer: never cached (answers carry names, states and CSRF tokens), never sniffed as another type. */
const API_HEADERS: Record<string, string> = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

const MAX_BODY = 1024 * 1024;
const NAME_FIELDS = new Set(['name', 'username', 'repo', 'app']);

/** A name that fails its pattern gets its own code, so the interface can explain the naming rule. */
const isNameIssue = (i: { code: string; path: PropertyKey[] }) => i.code === 'invalid_format' && NAME_FIELDS.has(String(i.path.at(-1)));

/** The refused name in the input the schema saw (cut to 100 characters), or '' where there is none. */
function nameSent(input: unknown, path: PropertyKey[]): string {
  let at = input;
  for (const key of path) at = at !== null && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key] : undefined;
  return typeof at === 'string' ? at.slice(0, 100) : '';
}

type Issue = { code: string; path: PropertyKey[]; message: string };

/** A request the route's schema refused: `validation`, or `invalid_name` with the name as sent. */
function refuseInvalid(result: { success: true } | { success: false; error: { issues: readonly Issue[] } }): void {
  if (result.success) return;
  const issues = result.error.issues;
  const fields = [...new Set(issues.map((i) => i.path.join('.')).filter(Boolean))];
  const first = issues[0];
  const where = first?.path.length ? `${first.path.join('.')}: ` : '';
  if (first && isNameIssue(first)) {
    // The name as sent, so the interface can say which name it refuses (`error.invalid_name` has {name}).
    throw new AppError('invalid_name', `${where}${first.message}`, {
      fields,
      params: { name: nameSent((result as { data?: unknown }).data, first.path) },
    });
  }
  throw new AppError('validation', `${where}${first?.message ?? 'invalid input'}`, { fields });
}

/** Builds the whole HTTP application: middleware, every route, the web interface. */
export function createHttpApp(services: Services, opts: HttpOptions): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: (result) => refuseInvalid(result) });
  useMiddleware(app, services, opts);
  useRoutes(app, services, opts);
  app.doc31('/api/openapi.json', {
    openapi: '3.1.0',
    info: { title: 'Kade API', version: opts.version },
  });
  app.notFound((c) => {
    if (c.req.path.startsWith('/api/')) {
      return problemResponse(c, new AppError('not_found', `no route ${c.req.method} ${c.req.path}`, { params: { what: 'route', name: c.req.path } }));
    }
    return c.text('not found', 404);
  });
  app.onError((err, c) => problemResponse(c, normaliseError(err, c)));
  serveWeb(app, opts.webDir);
  return app;
}

/** Request id, client and logger; the API's headers; the body limit; the Host check; the session. */
function useMiddleware(app: OpenAPIHono<AppEnv>, services: Services, opts: HttpOptions): void {
  app.use('*', requestId());
  app.use('*', async (c, next) => {
    const client = opts.proxyTrust.describe(opts.peerAddress?.(c.req.raw, c.env), c.req.url, (name) => c.req.header(name));
    c.set('peer', client.peer);
    c.set('ip', client.ip);
    c.set('https', client.https);
    const log = opts.logger.child({ req_id: c.get('requestId') });
    c.set('log', log);
    const started = performance.now();
    await next();
    // Debug: at info every page view wrote several lines, drowning what Kade itself has to say (SVC_LOG_LEVEL=debug shows them).
    log.debug({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) }, 'request');
  });
  app.use('/api/*', async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(API_HEADERS)) c.res.headers.set(k, v);
  });
  // Every route, API or not, chunked or not: the limit counts the bytes as they arrive. GET and HEAD carry no body
  // Kade reads, and asking for one makes the server build a whole Request per answer (measured: most of the
  // garbage of a list under load), so they pass without it.
  const limitBody = bodyLimit({
    maxSize: MAX_BODY,
    onError: () => {
      throw new AppError('payload_too_large', `request body is larger than ${MAX_BODY} bytes`, { params: { max: MAX_BODY } });
    },
  });
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));
  app.use('*', hostCheck({ setupRequired: () => services.auth.setupRequired(), ...opts.hosts }));
  app.use('/api/*', sessionMiddleware(services.auth));
}

function useRoutes(app: OpenAPIHono<AppEnv>, services: Services, opts: HttpOptions): void {
  systemRoutes(app, opts.version, services);
  authRoutes(app, services.auth);
  catalogueRoutes(app, services, opts.prefill);
  policyRoutes(app, services);
  stacksRoutes(app, services);
  stackConfigRoutes(app, services);
  containersRoutes(app, services, opts.follow);
  jobsRoutes(app, services.jobs, opts.follow);
  usersRoutes(app, services);
  auditRoutes(app, services.audit);
  settingsRoutes(app, services);
  notificationsRoutes(app, services);
  wizardRoutes(app, services);
  hostRoutes(app, services);
  networksRoutes(app, services);
  backupsRoutes(app, services);
  updatesRoutes(app, services);
  selfUpdateRoutes(app, services);
}

import type { OpenAPIHono } from '@hono/zod-openapi';
import { fieldPath, Notifications, NotificationsUpdate, TestResults } from '../../../shared/notifications.ts';
import { AppError } from '../../core/errors.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { json, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { get, post, put } = routeGroup('notifications');

const getNotifications = get('/api/notifications', 'admin', { 200: Notifications }).summary(
  'Channels (secrets only as has_token / smtp.has_password), each with its delivery history newest first; rules (kind → channel ids; a channel named in no rule gets every kind); the kinds; the stuck-job threshold',
);
const putNotifications = put('/api/notifications', 'admin', { body: NotificationsUpdate, 200: json(Notifications, 'saved; as GET answers') }).summary(
  'Replaces channels and rules. token and smtp.password are write-only: empty or absent keeps the stored one of the same channel id. Push and webhook need an http(s) url, e-mail needs smtp host, port, from and to. Rules may name only channels of the body.',
);
const testNotifications = post('/api/notifications/test', 'admin', { body: NotificationsUpdate, 200: TestResults }).summary(
  'Saves the body as PUT does, then sends one test message to every enabled channel; answers what each channel said (HTTP status or SMTP reply code, or the error such as "connection refused")',
);

/** Names the field as the interface shows it (`channels[0].url`), so the form can mark it. */
const hook = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }): undefined => {
  if (result.success) return undefined;
  const issues = result.error?.issues ?? [];
  const fields = [...new Set(issues.map((i) => fieldPath(i.path)).filter(Boolean))];
  const first = issues[0];
  const field = first ? fieldPath(first.path) : '';
  throw new AppError('validation', `${field ? `${field}: ` : ''}${first?.message ?? 'invalid input'}`, { params: { field }, fields });
};

export function notificationsRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'notifications'>): void {
  app.openapi(getNotifications, (c) => c.json(s.notifications.read(actorOf(c)), 200));
  app.openapi(putNotifications, (c) => c.json(s.notifications.update(actorOf(c), c.req.valid('json')), 200), hook);
  app.openapi(testNotifications, async (c) => c.json(await s.notifications.test(actorOf(c), c.req.valid('json')), 200), hook);
}

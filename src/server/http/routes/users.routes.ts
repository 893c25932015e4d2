import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { NewUser, PasswordChange, Problem, UserChange, UserEntry, UserName } from '../../../shared/api.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { json, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const UserParam = z.object({ name: UserName });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });
const CONFLICT = { 409: problem('the name is taken, or it is the last admin') };

const { get, post, put, delete: del } = routeGroup('users');
const { put: authPut } = routeGroup('auth');

const list = get('/api/users', 'admin', { 200: z.array(UserEntry) }).summary('All local accounts with role and last login; never a password hash');
const create = post('/api/users', 'admin', { body: NewUser, 201: json(UserEntry, 'created'), ...CONFLICT }).summary('Create an account with a role');
const update = put('/api/users/{name}', 'admin', { params: UserParam, body: UserChange, 200: UserEntry, ...CONFLICT }).summary(
  "Change an account's role and/or set a new password (ends that account's sessions); the last admin cannot be demoted",
);
const remove = del('/api/users/{name}', 'admin', { params: UserParam, 204: { description: 'deleted' }, ...CONFLICT }).summary(
  'Delete an account and end its sessions; the last admin cannot be deleted',
);
const password = authPut('/api/auth/password', 'viewer', {
  body: PasswordChange,
  204: { description: 'changed' },
  429: problem('too many wrong current passwords; see Retry-After'),
}).summary('Change your own password; the role stays, your other sessions end, this one stays');

/** Account management (admin) and the own-password change (everyone logged in). */
export function usersRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'users'>): void {
  app.openapi(list, (c) => c.json(s.users.list(actorOf(c)), 200));
  app.openapi(create, async (c) => c.json(await s.users.create(actorOf(c), c.req.valid('json')), 201));
  app.openapi(update, async (c) => {
    const user = await s.users.update(actorOf(c), c.req.valid('param').name, c.req.valid('json'), c.get('auth')?.sessionId ?? null);
    return c.json(user, 200);
  });
  app.openapi(remove, (c) => {
    s.users.remove(actorOf(c), c.req.valid('param').name);
    return c.body(null, 204);
  });
  app.openapi(password, async (c) => {
    const body = c.req.valid('json');
    await s.users.changeOwnPassword(actorOf(c), body.current_password, body.new_password, c.get('auth')?.sessionId ?? null);
    return c.body(null, 204);
  });
}

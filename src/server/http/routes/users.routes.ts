import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { NewUser, PasswordChange, Problem, UserChange, UserEntry, UserName } from '../../../shared/api.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { defineRoute, json, jsonBody, PROBLEMS } from '../route.ts';
import type { Services } from '../services.ts';

const UserParam = z.object({ name: UserName });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: Problem } } });
const CONFLICT = { 409: problem('the name is taken, or it is the last admin') };

const list = defineRoute('admin', {
  method: 'get',
  path: '/api/users',
  tags: ['users'],
  summary: 'All local accounts with role and last login; never a password hash',
  responses: { 200: json(z.array(UserEntry)), ...PROBLEMS },
});
const create = defineRoute('admin', {
  method: 'post',
  path: '/api/users',
  tags: ['users'],
  summary: 'Create an account with a role',
  request: { body: jsonBody(NewUser) },
  responses: { 201: json(UserEntry, 'created'), ...PROBLEMS, ...CONFLICT },
});
const update = defineRoute('admin', {
  method: 'put',
  path: '/api/users/{name}',
  tags: ['users'],
  summary: "Change an account's role and/or set a new password (ends that account's sessions); the last admin cannot be demoted",
  request: { params: UserParam, body: jsonBody(UserChange) },
  responses: { 200: json(UserEntry), ...PROBLEMS, ...CONFLICT },
});
const remove = defineRoute('admin', {
  method: 'delete',
  path: '/api/users/{name}',
  tags: ['users'],
  summary: 'Delete an account and end its sessions; the last admin cannot be deleted',
  request: { params: UserParam },
  responses: { 204: { description: 'deleted' }, ...PROBLEMS, ...CONFLICT },
});
const password = defineRoute('viewer', {
  method: 'put',
  path: '/api/auth/password',
  tags: ['auth'],
  summary: 'Change your own password; the role stays, your other sessions end, this one stays',
  request: { body: jsonBody(PasswordChange) },
  responses: { 204: { description: 'changed' }, ...PROBLEMS, 429: problem('too many wrong current passwords; see Retry-After') },
});

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

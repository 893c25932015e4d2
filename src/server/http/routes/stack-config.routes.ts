import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { z } from 'zod';
import { JobAccepted, Stack } from '../../../shared/api.ts';
import {
  AcceptFilesRequest,
  AdoptRequest,
  EnvContent,
  FileContent,
  FileSave,
  FileSaved,
  FilesAccepted,
  FilesVerdict,
  ImageTags,
  ReconfigureRequest,
  RestoreRequest,
  Snapshot,
  SnapshotRestored,
  StackConfig,
  StackCredentials,
  StackData,
} from '../../../shared/stack-config.ts';
import { AppError } from '../../core/errors.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { defineRoute, json, jsonBody, NameParam, PROBLEMS } from '../route.ts';
import type { Services } from '../services.ts';

const TAGS = ['stacks'];
const ServiceParam = NameParam.extend({ service: z.string().max(100) });
const SnapshotParam = NameParam.extend({ id: z.string().max(100) });

const config = defineRoute('operator', {
  method: 'get',
  path: '/api/stacks/{name}/config',
  tags: TAGS,
  summary: 'Stored form values (secrets for admins only), the current field schema, the extras per service and the repo cache status',
  request: { params: NameParam },
  responses: { 200: json(StackConfig), ...PROBLEMS },
});
const reconfigure = defineRoute('operator', {
  method: 'post',
  path: '/api/stacks/{name}/reconfigure',
  tags: TAGS,
  summary: 'Re-render with changed values and extras: snapshot, render, re-apply choices, validate, change database passwords, restart (job)',
  request: { params: NameParam, body: jsonBody(ReconfigureRequest) },
  responses: { 202: json(JobAccepted), ...PROBLEMS },
});
const tags = defineRoute('operator', {
  method: 'get',
  path: '/api/stacks/{name}/services/{service}/tags',
  tags: TAGS,
  summary: "The tags of a service's image: the registry's list, or the local images when it cannot be asked",
  request: { params: ServiceParam },
  responses: { 200: json(ImageTags), ...PROBLEMS },
});
const getEnv = defineRoute('operator', {
  method: 'get',
  path: '/api/stacks/{name}/env',
  tags: TAGS,
  summary:
    'The .env text with secret values masked as •••••••• (the secret fields, names that look secret, keys marked `# secret`, URL passwords), and the masked keys; ?reveal=1 (admins only) answers it in clear and writes an env_reveal audit entry. A PUT that keeps a masked line keeps that secret.',
  request: { params: NameParam, query: z.object({ reveal: z.enum(['0', '1']).optional() }) },
  responses: { 200: json(EnvContent), ...PROBLEMS },
});
const putEnv = defineRoute('operator', {
  method: 'put',
  path: '/api/stacks/{name}/env',
  tags: TAGS,
  summary:
    "Replace the .env text; a line without = is refused, a COMPOSE_ or DOCKER_ key too; a masked line keeps its stored value; judged as the user with the compose file (powers; a variable that moves a bind source outside the app needs an admin's confirm_outside_paths); a snapshot is kept; the file stays 0600",
  request: { params: NameParam, body: jsonBody(FileSave) },
  responses: { 200: json(FileSaved), ...PROBLEMS },
});
const getCompose = defineRoute('viewer', {
  method: 'get',
  path: '/api/stacks/{name}/compose',
  tags: TAGS,
  summary: 'The compose text; for non-admins with secret values (variables named like a secret, URL passwords, the .env secrets) masked as ••••••••',
  request: { params: NameParam },
  responses: { 200: json(FileContent), ...PROBLEMS },
});
const putCompose = defineRoute('operator', {
  method: 'put',
  path: '/api/stacks/{name}/compose',
  tags: TAGS,
  summary:
    'Replace the compose text; invalid YAML or compose is refused before the file changes; a masked value left where it was keeps its stored text, one moved elsewhere is refused; powers over the host need an admin (or ALLOW_PRIVILEGED_APPS); host paths outside the app (bind policy) are refused unless an admin lists them exactly in confirm_outside_paths (audited); a snapshot is kept',
  request: { params: NameParam, body: jsonBody(FileSave) },
  responses: { 200: json(FileSaved), ...PROBLEMS },
});
const snapshots = defineRoute('operator', {
  method: 'get',
  path: '/api/stacks/{name}/snapshots',
  tags: TAGS,
  summary: "Snapshots of the app's files taken before changes, newest first",
  request: { params: NameParam },
  responses: { 200: json(z.array(Snapshot)), ...PROBLEMS },
});
const restore = defineRoute('operator', {
  method: 'post',
  path: '/api/stacks/{name}/snapshots/{id}/restore',
  tags: TAGS,
  summary:
    "Put the files of a snapshot back (the current files become a snapshot first), judged as the user like the compose editor: host paths outside the app need an admin's confirm_outside_paths",
  request: { params: SnapshotParam, body: { required: false, content: { 'application/json': { schema: RestoreRequest } } } },
  responses: { 200: json(SnapshotRestored), ...PROBLEMS },
});
const credentials = defineRoute('admin', {
  method: 'get',
  path: '/api/stacks/{name}/credentials',
  tags: TAGS,
  summary: "The app's address, user name and password and other credential values; every call is audited",
  request: { params: NameParam },
  responses: { 200: json(StackCredentials), ...PROBLEMS },
});
const data = defineRoute('operator', {
  method: 'get',
  path: '/api/stacks/{name}/data',
  tags: TAGS,
  summary:
    "Exactly what DELETE /api/stacks/{name}?remove_data=1 removes: the app's own DATA_DIR/<name> (when it exists) and bind sources below it, and its compose project's named volumes; never DATA_DIR itself, another app's folder or an admin-listed folder. An adopted app: nothing",
  request: { params: NameParam },
  responses: { 200: json(StackData), ...PROBLEMS },
});
const adopt = defineRoute('operator', {
  method: 'post',
  path: '/api/stacks/adopt',
  tags: TAGS,
  summary:
    'Take a compose app that runs outside Kade under management; its folder (below BASE_DIR) is referenced, never moved. Its compose may bind below its own folder and its DATA_DIR/<name>; other host paths follow the bind policy (admins: confirm_outside_paths)',
  request: { body: jsonBody(AdoptRequest) },
  responses: { 201: json(Stack), ...PROBLEMS },
});

const filesVerdict = defineRoute('viewer', {
  method: 'get',
  path: '/api/stacks/{name}/files',
  tags: TAGS,
  summary:
    "Whether Kade runs the app's files as they are now: they must be the files Kade wrote (or an admin accepted) and pass the compose and bind policies; else the refusal every compose run of the app would get",
  request: { params: NameParam },
  responses: { 200: json(FilesVerdict), ...PROBLEMS },
});
const acceptFiles = defineRoute('admin', {
  method: 'post',
  path: '/api/stacks/{name}/files/accept',
  tags: TAGS,
  summary:
    "Accept the app's compose file and .env as they are now (an adopted app, or files edited by hand): judged first like a compose edit (host paths outside the app need confirm_outside_paths), then recorded as the files Kade runs; audited",
  request: { params: NameParam, body: { required: false, content: { 'application/json': { schema: AcceptFilesRequest } } } },
  responses: { 200: json(FilesAccepted), ...PROBLEMS },
});

const hostOf = (c: Context<AppEnv>) => new URL(c.req.url).hostname;

export function stackConfigRoutes(app: OpenAPIHono<AppEnv>, s: Services): void {
  app.openapi(config, (c) => c.json(s.stacks.config(actorOf(c), c.req.valid('param').name), 200));
  app.openapi(reconfigure, (c) => c.json({ job: s.stacks.reconfigure(actorOf(c), c.req.valid('param').name, c.req.valid('json')) }, 202));
  app.openapi(tags, async (c) => {
    const { name, service } = c.req.valid('param');
    const svc = s.stacks.config(actorOf(c), name).services.find((x) => x.name === service);
    if (!svc) throw new AppError('not_found', `app '${name}' has no service '${service}'`, { params: { what: 'service', name: service } });
    if (!svc.image) throw new AppError('conflict', `service '${service}' builds its image instead of naming one`, { params: { service } });
    return c.json({ service, ...(await s.imageTags.tags(svc.image)) }, 200);
  });
  app.openapi(getEnv, (c) => c.json(s.stacks.readEnv(actorOf(c), c.req.valid('param').name, c.req.valid('query').reveal === '1'), 200));
  app.openapi(putEnv, (c) => {
    const body = c.req.valid('json');
    return c.json(s.stacks.writeEnv(actorOf(c), c.req.valid('param').name, body.content, body.confirm_outside_paths), 200);
  });
  app.openapi(getCompose, (c) => c.json(s.stacks.readCompose(actorOf(c), c.req.valid('param').name), 200));
  app.openapi(putCompose, async (c) => {
    const body = c.req.valid('json');
    return c.json(await s.stacks.writeCompose(actorOf(c), c.req.valid('param').name, body.content, body.confirm_outside_paths), 200);
  });
  app.openapi(snapshots, (c) => c.json(s.stacks.snapshots(actorOf(c), c.req.valid('param').name), 200));
  app.openapi(restore, (c) => {
    const { name, id } = c.req.valid('param');
    const body = (c.req.valid('json') as { confirm_outside_paths?: string[] } | undefined) ?? {};
    return c.json(s.stacks.restoreSnapshot(actorOf(c), name, id, body.confirm_outside_paths), 200);
  });
  app.openapi(filesVerdict, (c) => c.json(s.stacks.filesVerdict(actorOf(c), c.req.valid('param').name), 200));
  app.openapi(acceptFiles, (c) => {
    const body = (c.req.valid('json') as { confirm_outside_paths?: string[] } | undefined) ?? {};
    return c.json(s.stacks.acceptFiles(actorOf(c), c.req.valid('param').name, body.confirm_outside_paths), 200);
  });
  app.openapi(data, async (c) => c.json(await s.stacks.data(actorOf(c), c.req.valid('param').name), 200));
  app.openapi(credentials, (c) => c.json(s.stacks.credentials(actorOf(c), c.req.valid('param').name, hostOf(c)), 200));
  app.openapi(adopt, async (c) => {
    const body = c.req.valid('json');
    const name = await s.stacks.adopt(actorOf(c), body);
    const { containers: _c, ...stack } = await s.stacks.get(name, hostOf(c));
    return c.json(stack, 201);
  });
}

import type { OpenAPIHono } from '@hono/zod-openapi';
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
import { type AppEnv, actorOf, hostOf } from '../context.ts';
import { NameParam, optionalJsonBody, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { get, post, put } = routeGroup('stacks');
const ServiceParam = NameParam.extend({ service: z.string().max(100) });
const SnapshotParam = NameParam.extend({ id: z.string().max(100) });

const config = get('/api/stacks/{name}/config', 'operator', { params: NameParam, 200: StackConfig }).summary(
  'Stored form values (secrets for admins only), the current field schema, the extras per service and the repo cache status',
);
const reconfigure = post('/api/stacks/{name}/reconfigure', 'operator', { params: NameParam, body: ReconfigureRequest, 202: JobAccepted }).summary(
  'Re-render with changed values and extras: snapshot, render, re-apply choices, validate, change database passwords, restart (job)',
);
const tags = get('/api/stacks/{name}/services/{service}/tags', 'operator', { params: ServiceParam, 200: ImageTags }).summary(
  "The tags of a service's image: the registry's list, or the local images when it cannot be asked",
);
const getEnv = get('/api/stacks/{name}/env', 'operator', {
  params: NameParam,
  query: z.object({ reveal: z.enum(['0', '1']).optional() }),
  200: EnvContent,
}).summary(
  'The .env text with secret values masked as •••••••• (the secret fields, names that look secret, keys marked `# secret`, URL passwords), and the masked keys; ?reveal=1 (admins only) answers it in clear and writes an env_reveal audit entry. A PUT that keeps a masked line keeps that secret.',
);
const putEnv = put('/api/stacks/{name}/env', 'operator', { params: NameParam, body: FileSave, 200: FileSaved }).summary(
  "Replace the .env text; a line without = is refused, a COMPOSE_ or DOCKER_ key too; a masked line keeps its stored value; judged as the user with the compose file (powers; a variable that moves a bind source outside the app needs an admin's confirm_outside_paths); a snapshot is kept; the file stays 0600",
);
const getCompose = get('/api/stacks/{name}/compose', 'viewer', { params: NameParam, 200: FileContent }).summary(
  'The compose text; for non-admins with secret values (variables named like a secret, URL passwords, the .env secrets) masked as ••••••••',
);
const putCompose = put('/api/stacks/{name}/compose', 'operator', { params: NameParam, body: FileSave, 200: FileSaved }).summary(
  'Replace the compose text; invalid YAML or compose is refused before the file changes; a masked value left where it was keeps its stored text, one moved elsewhere is refused; powers over the host need an admin (or ALLOW_PRIVILEGED_APPS); host paths outside the app (bind policy) are refused unless an admin lists them exactly in confirm_outside_paths (audited); a snapshot is kept',
);
const snapshots = get('/api/stacks/{name}/snapshots', 'operator', { params: NameParam, 200: z.array(Snapshot) }).summary(
  "Snapshots of the app's files taken before changes, newest first",
);
const restore = post('/api/stacks/{name}/snapshots/{id}/restore', 'operator', {
  params: SnapshotParam,
  body: optionalJsonBody(RestoreRequest),
  200: SnapshotRestored,
}).summary(
  "Put the files of a snapshot back (the current files become a snapshot first), judged as the user like the compose editor: host paths outside the app need an admin's confirm_outside_paths",
);
const credentials = get('/api/stacks/{name}/credentials', 'admin', { params: NameParam, 200: StackCredentials }).summary(
  "The app's address, user name and password and other credential values; every call is audited",
);
const data = get('/api/stacks/{name}/data', 'operator', { params: NameParam, 200: StackData }).summary(
  "Exactly what DELETE /api/stacks/{name}?remove_data=1 removes: the app's own DATA_DIR/<name> (when it exists) and bind sources below it, and its compose project's named volumes; never DATA_DIR itself, another app's folder or an admin-listed folder. An adopted app: nothing",
);
const adopt = post('/api/stacks/adopt', 'operator', { body: AdoptRequest, 201: Stack }).summary(
  'Take a compose app that runs outside Kade under management; its folder (below BASE_DIR) is referenced, never moved. Its compose may bind below its own folder and its DATA_DIR/<name>; other host paths follow the bind policy (admins: confirm_outside_paths)',
);

const filesVerdict = get('/api/stacks/{name}/files', 'viewer', { params: NameParam, 200: FilesVerdict }).summary(
  "Whether Kade runs the app's files as they are now: they must be the files Kade wrote (or an admin accepted) and pass the compose and bind policies; else the refusal every compose run of the app would get",
);
const acceptFiles = post('/api/stacks/{name}/files/accept', 'admin', {
  params: NameParam,
  body: optionalJsonBody(AcceptFilesRequest),
  200: FilesAccepted,
}).summary(
  "Accept the app's compose file and .env as they are now (an adopted app, or files edited by hand): judged first like a compose edit (host paths outside the app need confirm_outside_paths), then recorded as the files Kade runs; audited",
);

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

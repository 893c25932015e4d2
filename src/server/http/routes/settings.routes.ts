import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { JobAccepted } from '../../../shared/api.ts';
import { PATH_CHECK_KEYS, PathCheck, PathMove, Settings, SettingsUpdate } from '../../../shared/settings.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { json, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { get, post, put } = routeGroup('settings');

const getSettings = get('/api/settings', 'admin', { 200: Settings }).summary(
  'Every setting; write-only secrets read as {"set": bool}; paths_in_use are the folders this process works in',
);
const putSettings = put('/api/settings', 'admin', { body: SettingsUpdate, 200: json(Settings, 'saved; the settings as they are now') }).summary(
  'Change any subset. An empty or absent secret keeps the stored one, {"set": false} removes it. A changed folder Kade cannot reach is refused (path_unreachable) with the .env line that fixes it; an unchanged one never blocks. AUTH is read-only (read_only_setting). Legacy UPDATE_INCLUDE_PRERELEASE=true means UPDATE_CHANNEL=beta. Changed folders apply after a restart.',
);
const checkPath = get('/api/paths/check', 'viewer', {
  query: z.object({ path: z.string().min(1).max(4096), key: z.enum(PATH_CHECK_KEYS).optional() }),
  200: PathCheck,
}).summary(
  'Whether Kade can use a folder: exists, writable, inside the mounted BASE_DIR; when not, the .env line that fixes it. With key, the rules of that setting apply (BACKUP_OFFSITE_DIR need not lie in BASE_DIR but must exist). Non-admins get the answer only inside the mounted BASE_DIR or ALLOWED_HOST_DIRS (never inside LIBRARY_DIR, BACKUP_DIR or SVC_DATA); anything else answers ok false with reason not_allowed, whatever is there.',
);

const movePaths = post('/api/paths/move', 'admin', { body: PathMove, 202: JobAccepted }).summary(
  'Moves LIBRARY_DIR, DATA_DIR and/or BACKUP_DIR (job): apps stopped, folders copied into the new (empty) folders, the copy verified, paths rewritten in compose, .env and .svc.json, apps started again, the new folders saved, and only then the old ones removed; Kade then restarts in place. Any failure before the save leaves everything where it was, running. 409 while apps are busy or when a new folder is not empty; 507 when the copy does not fit.',
);

export function settingsRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'settings' | 'paths'>): void {
  app.openapi(movePaths, (c) => c.json({ job: s.paths.start(actorOf(c), c.req.valid('json')) }, 202));
  app.openapi(getSettings, (c) => c.json(s.settings.read(actorOf(c)), 200));
  app.openapi(putSettings, (c) => c.json(s.settings.update(actorOf(c), c.req.valid('json')), 200));
  app.openapi(checkPath, (c) => {
    const { path, key } = c.req.valid('query');
    return c.json(s.settings.checkPath(actorOf(c), path, key), 200);
  });
}

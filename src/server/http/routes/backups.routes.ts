import { Readable } from 'node:stream';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { JobAccepted } from '../../../shared/api.ts';
import {
  BackupCreate,
  BackupIdParam,
  BackupList,
  BackupQuery,
  BackupRestore,
  BackupSchedule,
  BackupScheduleUpdate,
  DiskState,
} from '../../../shared/backups.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { defineRoute, json, jsonBody, PROBLEMS } from '../route.ts';
import type { Services } from '../services.ts';

const TAGS = ['backups'];

const list = defineRoute('viewer', {
  method: 'get',
  path: '/api/backups',
  tags: TAGS,
  summary: 'Backups in BACKUP_DIR, newest first (?stack= one app): size, verification, skipped files, dumped databases',
  request: { query: BackupQuery },
  responses: { 200: json(BackupList), ...PROBLEMS },
});
const create = defineRoute('operator', {
  method: 'post',
  path: '/api/backups',
  tags: TAGS,
  summary:
    'Back up an app (job): its folder, its data folder (BACKUP_APPDATA) and a dump per running database; 507 disk_full when it would leave less than DISK_MIN_FREE_GB free',
  request: { body: jsonBody(BackupCreate) },
  responses: { 202: json(JobAccepted), ...PROBLEMS },
});
const verify = defineRoute('operator', {
  method: 'post',
  path: '/api/backups/{id}/verify',
  tags: TAGS,
  summary: 'Read the whole archive and check every entry against its recorded checksum (job); the result is recorded',
  request: { params: BackupIdParam },
  responses: { 202: json(JobAccepted), ...PROBLEMS },
});
const restore = defineRoute('operator', {
  method: 'post',
  path: '/api/backups/{id}/restore',
  tags: TAGS,
  summary:
    "Restore (job). Before the job, the archive's compose file and .env are judged as the caller installing them would be: powers over the host (ALLOW_PRIVILEGED_APPS) are 403 app_powers_refused for a non-admin, host paths outside the app (bind policy) are 400 forbidden_path unless an admin lists exactly those paths in confirm_outside_paths (audited). Then verified; hostile entries refused before anything is written; app stopped, folder and data moved aside, archive moved in, started, dumps loaded once the database answers; any failure puts the old state back",
  request: { params: BackupIdParam, body: { required: false, content: { 'application/json': { schema: BackupRestore } } } },
  responses: { 202: json(JobAccepted), ...PROBLEMS },
});
const download = defineRoute('admin', {
  method: 'get',
  path: '/api/backups/{id}/download',
  tags: TAGS,
  summary:
    "The archive, streamed as `<id>.tar.gz` (application/gzip) or `<id>.tar.zst` (application/zstd), whichever it was written as; admins only, since it holds the app's .env with its secrets in clear",
  request: { params: BackupIdParam },
  responses: {
    200: { description: 'the archive', content: { 'application/gzip': { schema: z.string() }, 'application/zstd': { schema: z.string() } } },
    ...PROBLEMS,
  },
});
const remove = defineRoute('operator', {
  method: 'delete',
  path: '/api/backups/{id}',
  tags: TAGS,
  summary: 'Delete a backup (archive and metadata)',
  request: { params: BackupIdParam },
  responses: { 204: { description: 'deleted' }, ...PROBLEMS },
});
const disk = defineRoute('viewer', {
  method: 'get',
  path: '/api/backups/disk',
  tags: TAGS,
  summary: "The backup folder's disk: total, free, used percentage, DISK_WARN_PCT and DISK_MIN_FREE_GB",
  responses: { 200: json(DiskState), ...PROBLEMS },
});
const getSchedule = defineRoute('viewer', {
  method: 'get',
  path: '/api/backups/schedule',
  tags: TAGS,
  summary: 'The backup schedule (off, daily, weekly on a day, at an hour of server time), retention by count and age, and the next run',
  responses: { 200: json(BackupSchedule), ...PROBLEMS },
});
const putSchedule = defineRoute('admin', {
  method: 'put',
  path: '/api/backups/schedule',
  tags: TAGS,
  summary: 'Change the schedule and retention (the BACKUP_SCHEDULE_* and BACKUP_RETENTION_* settings); takes effect at once',
  request: { body: jsonBody(BackupScheduleUpdate) },
  responses: { 200: json(BackupSchedule), ...PROBLEMS },
});

export function backupsRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'backups'>): void {
  app.openapi(list, (c) => c.json(s.backups.list(actorOf(c), c.req.valid('query').stack), 200));
  app.openapi(disk, (c) => c.json(s.backups.disk(), 200));
  app.openapi(getSchedule, (c) => c.json(s.backups.schedule(actorOf(c)), 200));
  app.openapi(putSchedule, (c) => c.json(s.backups.setSchedule(actorOf(c), c.req.valid('json')), 200));
  app.openapi(create, (c) => c.json({ job: s.backups.create(actorOf(c), c.req.valid('json').stack) }, 202));
  app.openapi(verify, (c) => c.json({ job: s.backups.verify(actorOf(c), c.req.valid('param').id) }, 202));
  app.openapi(restore, async (c) => {
    const body = (c.req.valid('json') as { confirm_outside_paths?: string[] } | undefined) ?? {};
    return c.json({ job: await s.backups.restore(actorOf(c), c.req.valid('param').id, body.confirm_outside_paths) }, 202);
  });
  app.openapi(remove, (c) => {
    s.backups.remove(actorOf(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  app.openapi(download, (c) => {
    const f = s.backups.download(actorOf(c), c.req.valid('param').id);
    return new Response(Readable.toWeb(f.stream as Readable) as ReadableStream, {
      status: 200,
      headers: {
        'content-type': f.type,
        'content-length': String(f.size),
        'content-disposition': `attachment; filename="${f.name}"`,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      },
    }) as never;
  });
}

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
import { optionalJsonBody, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { get, post, put, delete: del } = routeGroup('backups');

const list = get('/api/backups', 'viewer', { query: BackupQuery, 200: BackupList }).summary(
  'Backups in BACKUP_DIR, newest first (?stack= one app): size, verification, skipped files, dumped databases',
);
const create = post('/api/backups', 'operator', { body: BackupCreate, 202: JobAccepted }).summary(
  'Back up an app (job): its folder, its data folder (BACKUP_APPDATA) and a dump per running database; 507 disk_full when it would leave less than DISK_MIN_FREE_GB free',
);
const verify = post('/api/backups/{id}/verify', 'operator', { params: BackupIdParam, 202: JobAccepted }).summary(
  'Read the whole archive and check every entry against its recorded checksum (job); the result is recorded',
);
const restore = post('/api/backups/{id}/restore', 'operator', { params: BackupIdParam, body: optionalJsonBody(BackupRestore), 202: JobAccepted }).summary(
  "Restore (job). Before the job, the archive's compose file and .env are judged as the caller installing them would be: powers over the host (ALLOW_PRIVILEGED_APPS) are 403 app_powers_refused for a non-admin, host paths outside the app (bind policy) are 400 forbidden_path unless an admin lists exactly those paths in confirm_outside_paths (audited). Then verified while it is extracted into a staging folder, in one read; hostile entries refused with nothing restored; app stopped, folder and data moved aside, archive moved in, started, dumps loaded once the database answers; any failure puts the old state back",
);
const ARCHIVE = { description: 'the archive', content: { 'application/gzip': { schema: z.string() }, 'application/zstd': { schema: z.string() } } };
const download = get('/api/backups/{id}/download', 'admin', { params: BackupIdParam, 200: ARCHIVE }).summary(
  "The archive, streamed as `<id>.tar.gz` (application/gzip) or `<id>.tar.zst` (application/zstd), whichever it was written as; admins only, since it holds the app's .env with its secrets in clear",
);
const remove = del('/api/backups/{id}', 'operator', { params: BackupIdParam, 204: { description: 'deleted' } }).summary(
  'Delete a backup (archive and metadata)',
);
const disk = get('/api/backups/disk', 'viewer', { 200: DiskState }).summary(
  "The backup folder's disk: total, free, used percentage, DISK_WARN_PCT and DISK_MIN_FREE_GB",
);
const getSchedule = get('/api/backups/schedule', 'viewer', { 200: BackupSchedule }).summary(
  'The backup schedule (off, daily, weekly on a day, at an hour of server time), retention by count and age, and the next run',
);
const putSchedule = put('/api/backups/schedule', 'admin', { body: BackupScheduleUpdate, 200: BackupSchedule }).summary(
  'Change the schedule and retention (the BACKUP_SCHEDULE_* and BACKUP_RETENTION_* settings); takes effect at once',
);

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

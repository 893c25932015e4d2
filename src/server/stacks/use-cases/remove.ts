import type { JobT } from '../../../shared/api.ts';
import { requireRole } from '../../core/authorize.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import type { JobContext } from '../../jobs/jobs.service.ts';
import { type AppData, appDataOf, removeAppFolder } from '../store/app-data.ts';
import { parseEnv } from '../store/env-file.ts';
import type { StackLocation } from '../store/stack-dir.ts';
import { downEvenIfRefused } from './project-runs.ts';
import type { StackContext } from './stack-context.ts';

/** A backup inside another job of the app (delete with backup=1); a failure is the backup's to log, the job goes on. */
export type BackupFirst = (stack: string, reason: string, ctx: JobContext, actor: Actor) => Promise<void>;

/** What "remove data" removes: the app's own data folder, bind sources below it and its project's named volumes. */
async function dataOf(c: StackContext, loc: StackLocation): Promise<AppData> {
  if (loc.adopted) return { folders: [], volumes: [] };
  const composeText = c.store.read(loc, 'compose') ?? '';
  const projectName = loc.composeFile ? c.store.project(loc).name : loc.name;
  const env = parseEnv(c.store.envText(loc));
  const existing = await c.engine.listVolumes({ project: projectName });
  return appDataOf({ name: loc.name, dataDir: c.prefill.dataDir, composeText, env, stackDir: loc.dir, project: projectName }, existing);
}

/** The app's containers, folder and (asked for) data removed; an adopted app loses only its reference. */
async function removeApp(c: StackContext, loc: StackLocation, removeData: boolean, ctx: JobContext, actor: Actor): Promise<void> {
  if (loc.adopted) {
    // Only the reference goes: the user's folder and the running containers stay as they are.
    c.store.remove(loc);
    ctx.log(`removed the reference ${loc.path}; ${loc.dir} and its containers are untouched`);
    return;
  }
  // Exactly what GET /api/stacks/<name>/data lists, read before anything goes.
  const data = removeData ? await dataOf(c, loc) : null;
  if (loc.composeFile) {
    ctx.log('stopping and removing containers');
    await downEvenIfRefused(c.engine, c.gate, c.store.project(loc), ctx, actor);
  }
  ctx.progress(0.6);
  c.store.remove(loc);
  ctx.log(`removed ${loc.dir}`);
  for (const v of data?.volumes ?? []) {
    await c.engine.removeVolume(v);
    ctx.log(`removed the volume ${v}`);
  }
  for (const f of data?.folders ?? []) {
    removeAppFolder(f);
    ctx.log(`removed ${f}`);
  }
}

/** Delete an app (DELETE /api/stacks/<name>), and what its "remove data" would remove. */
export function createRemove(c: StackContext, o: { backupFirst?: BackupFirst | undefined }) {
  /** GET /api/stacks/<name>/data: exactly what DELETE with remove_data=1 removes (an adopted app: nothing). */
  async function data(actor: Actor, name: string): Promise<AppData> {
    requireRole(actor, 'operator', 'the data of an app');
    return dataOf(c, c.store.locate(name));
  }

  function remove(actor: Actor, name: string, opts: { removeData: boolean; backup?: boolean }): JobT {
    const { backupFirst } = o;
    // Refused rather than ignored: a user who asked for a backup first must not lose the app without one.
    if (opts.backup && !backupFirst) {
      throw new AppError('not_implemented', 'a backup before delete is not available yet: delete without backup=1', {
        params: { feature: 'backup before delete' },
      });
    }
    const loc = c.store.locate(name);
    if (loc.adopted && opts.removeData) {
      throw new AppError('validation', `'${name}' was adopted: its data belongs to its own folder and is never removed by Kade`, { fields: ['remove_data'] });
    }
    return c.jobs.start({ kind: 'stack.delete', stack: name, actor }, async (ctx) => {
      if (opts.backup && backupFirst) await backupFirst(name, 'delete', ctx, actor);
      await removeApp(c, loc, opts.removeData, ctx, actor);
      c.events.emit({
        type: 'stack.deleted',
        actor,
        source: 'stacks',
        target: name,
        status: 'ok',
        detail: { remove_data: opts.removeData, adopted: loc.adopted },
      });
    });
  }

  return { remove, data };
}

/**
 * The backup a change of an app makes first (SPEC flows: reconfigure, "always: backup made") and the way back for
 * its databases: when the change fails after it touched them (a password changed inside the running database, an
 * `up -d` whose new version may have migrated), the dumps of that backup are loaded into the running databases.
 * Only the dumps: the app's data folder stays as it is, and the change's own snapshot puts its files back.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupT } from '../../shared/backups.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Actor } from '../core/events.ts';
import type { JobContext } from '../jobs/jobs.service.ts';
import type { BackupsDeps } from './backups.service.ts';
import { dumpName } from './dumps.ts';

/** What the change's backup needs of the backups service. */
export interface ChangeBackupLookup {
  /** The backup itself, inside the job that holds the app's slot. */
  run(stack: string, reason: string, ctx: JobContext): Promise<BackupT>;
  get(id: string): BackupT;
  archiveOf(id: string): string;
}

/** The folder a backup's dumps are extracted into while they load: in BACKUP_DIR, where no app may bind. */
const LOAD_PREFIX = (stack: string) => `.load.${stack}.`;

export function createChangeBackup(d: BackupsDeps, r: ChangeBackupLookup) {
  /**
   * A backup before a change: made inside the change's job and named in its log. Unlike the backup before an update or
   * a delete, a failure is the change's to judge: it is thrown (after the backup.failed event).
   */
  async function beforeChange(stack: string, reason: string, ctx: JobContext, actor: Actor | null): Promise<BackupT> {
    try {
      const b = await r.run(stack, reason, ctx);
      // A backup that does not read back could not put the databases back if the change fails: no change without one.
      if (b.verified === false)
        throw new AppError('archive_refused', `the backup ${b.id} made before the ${reason} did not read back whole, so nothing was changed`, {
          params: { id: b.id, reason: 'unverified' },
        });
      d.events.emit({ type: 'backup.created', actor, source: 'backups', target: stack, status: 'ok', detail: { id: b.id, reason } });
      ctx.log(`backup ${b.id} made before the ${reason}`);
      return b;
    } catch (err) {
      d.events.emit({
        type: 'backup.failed',
        actor,
        source: 'backups',
        target: stack,
        status: 'failed',
        detail: { reason, error: errorMessage(err), job: ctx.id },
      });
      throw err;
    }
  }

  /** Folders a crash left while dumps of this app were loading (the app's slot is held: none is in use). */
  function removeLeftovers(stack: string): void {
    let names: string[];
    try {
      names = readdirSync(d.settings.backupDir);
    } catch {
      return;
    }
    for (const n of names) if (n.startsWith(LOAD_PREFIX(stack))) rmSync(join(d.settings.backupDir, n), { recursive: true, force: true });
  }

  /**
   * Loads the dumps of backup `id` into the app's running databases, each once it answers (the data folder is not
   * touched). The archive is checked whole, then only its dumps are extracted, into a 0700 folder removed afterwards.
   * Resolves to the services loaded; throws on the first database that does not run or does not take its dump.
   */
  async function loadDumps(id: string, ctx: JobContext): Promise<string[]> {
    const b = r.get(id);
    const loaded: string[] = [];
    if (b.databases.length === 0) {
      ctx.log(`backup ${id} holds no database dump: no database to put back`);
      return loaded;
    }
    removeLeftovers(b.stack);
    const staging = join(d.settings.backupDir, `${LOAD_PREFIX(b.stack)}${randomBytes(4).toString('hex')}`);
    try {
      await d.archive.extract(r.archiveOf(id), staging, ['dumps']);
      const running = await d.stacks.databases(b.stack);
      for (const { service, kind } of b.databases) {
        const db = running.find((x) => x.service === service);
        if (!db?.containerId)
          throw new AppError('db_load_failed', `the ${kind} database of service '${service}' does not run, so the dump of backup ${id} was not loaded`, {
            params: { service, kind },
          });
        ctx.log(`loading the dump of '${service}' from backup ${id} once the database answers`);
        await db.load(createReadStream(join(staging, 'dumps', dumpName({ service }))));
        ctx.log(`the ${kind} database of '${service}' holds the data of backup ${id} again`);
        loaded.push(service);
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    return loaded;
  }

  return { beforeChange, loadDumps };
}

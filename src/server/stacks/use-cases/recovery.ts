import { parse } from 'yaml';
import { errorMessage } from '../../core/errors.ts';
import type { JobDetail } from '../../jobs/job-log.ts';
import type { JobContext, Resolver } from '../../jobs/jobs.service.ts';
import { KADE_ITSELF } from '../gate/compose-gate.ts';
import { parseEnv } from '../store/env-file.ts';
import type { StackLocation } from '../store/stack-dir.ts';
import { changeDatabasePassword, changedDatabasePasswords } from './db-password.ts';
import type { StackContext } from './stack-context.ts';

const parseDoc = (text: string | null): unknown => {
  try {
    return text ? (parse(text, { maxAliasCount: 100 }) as unknown) : {};
  } catch {
    return {};
  }
};

/**
 * What Kade does at start with jobs a crash cut off (SPEC: files and the running app agree again).
 *
 * A reconfigure or snapshot restore is always rolled back to the snapshot it took before its first
 * write, never carried through, even when the new files were complete: nobody saw the change
 * succeed, the running containers were started from the old files, and carrying through would run
 * the riskiest steps (database passwords, `up -d`, the wait) unattended, with the rollback as the
 * only answer to their failure anyway. The phase the job recorded says whether database passwords
 * may have changed; those are set back before the old `.env` returns. Then `up -d`, so the running
 * app matches the restored files, and when the databases may have changed, the dumps of the backup the
 * reconfigure made first are loaded into them.
 */
export function createRecovery(c: StackContext) {
  const resolvers: Record<string, Resolver> = {
    'stack.reconfigure': (job, detail, ctx) => resolveReconfigure(c, job.stack, detail, ctx),
    // A connect writes compose and metadata after a snapshot, like a reconfigure: rolled back the same way.
    'stack.connect': (job, detail, ctx) => resolveReconfigure(c, job.stack, detail, ctx),
    'stack.snapshot_restore': async (job, detail, ctx) => resolveSnapshotRestore(c, job.stack, detail, ctx),
    'stack.install': async (job, _detail, ctx) => resolveInstall(c, job.stack ?? '', ctx),
  };

  /** At start: resolves the jobs a crash cut off, and removes install temp folders no interrupted install accounts for. */
  function recoverInterrupted(more: Readonly<Record<string, Resolver>> = {}): number {
    const cut = c.jobs.recover({ ...resolvers, ...more });
    const installing = new Set(cut.filter((j) => j.kind === 'stack.install').map((j) => j.stack));
    c.store.cleanInstallTemps((app) => !installing.has(app));
    return cut.length;
  }

  return { recoverInterrupted };
}

const projectOf = (c: StackContext, loc: StackLocation) => c.store.plannedProject(loc);

/** Database passwords the cut-off reconfigure may have changed inside the running databases, set back to the snapshot's. */
async function setBackPasswords(c: StackContext, loc: StackLocation, snapshot: string, ctx: JobContext): Promise<void> {
  const old = c.store.snapshots.texts(loc.name, snapshot);
  const nowCompose = c.store.read(loc, 'compose') ?? '';
  const changes = changedDatabasePasswords(parseDoc(old.compose ?? nowCompose), parseDoc(nowCompose), parseEnv(old.env ?? ''), parseEnv(c.store.envText(loc)));
  if (changes.length === 0) return;
  const running: Record<string, string> = {};
  for (const ct of await c.engine.listContainers({ project: projectOf(c, loc).name })) if (ct.service && ct.state === 'running') running[ct.service] = ct.id;
  for (const ch of [...changes].reverse()) {
    ctx.mask(ch.oldPassword);
    ctx.mask(ch.newPassword);
    const who = `'${ch.user}' in '${ch.secret.service}'`;
    const id = running[ch.secret.service];
    if (!id) {
      ctx.log(`the password of ${who} may have changed, but the service has no running container: check it by hand`);
      continue;
    }
    await changeDatabasePassword(c.engine, id, { ...ch, oldPassword: ch.newPassword, newPassword: ch.oldPassword }).then(
      () => ctx.log(`set the password of ${who} back to the one in the snapshot`),
      (e: unknown) => ctx.log(`could not set the password of ${who} back (it may never have changed): ${errorMessage(e)}`),
    );
  }
}

/** Restores the snapshot the job recorded; returns its time, or why nothing was restored. */
function restoreRecorded(c: StackContext, loc: StackLocation, detail: JobDetail, ctx: JobContext, what: string): { at: string } | { none: string } {
  const id = typeof detail.snapshot === 'string' ? detail.snapshot : null;
  if (!id) return { none: `cut off before the ${what} changed any file: nothing to roll back` };
  const snap = c.store.snapshots.list(loc.name).find((s) => s.id === id);
  if (!snap) return { none: `the snapshot ${id} of the ${what} is gone: the files were left as they are` };
  c.store.restore(loc, id);
  ctx.log(`restored snapshot ${id} of ${snap.created_at}: the files are as they were before the ${what}`);
  return { at: snap.created_at };
}

/**
 * A reconfigure cut off once its databases may have changed (a password changed inside them, `up -d` of a new
 * version that may migrate) gets them back from the backup it made first: its dumps loaded into the running
 * databases, as the reconfigure's own failure does (reconfigure.ts). Returns what happened, or null for nothing.
 */
async function putDatabasesBack(c: StackContext, detail: JobDetail, ctx: JobContext): Promise<string | null> {
  const id = typeof detail.backup === 'string' && detail.backup !== '' ? detail.backup : null;
  if (!id || !c.backups || (detail.phase !== 'passwords' && detail.phase !== 'up')) return null;
  try {
    const loaded = await c.backups.loadDumps(id, ctx);
    return loaded.length > 0 ? `the databases of ${loaded.map((s) => `'${s}'`).join(', ')} hold the data of backup ${id} again` : null;
  } catch (err) {
    return `putting the databases back from backup ${id} failed (${errorMessage(err)}): restore that backup from Backups`;
  }
}

/** A cut-off reconfigure or connect: passwords set back, the snapshot restored, the app started, the databases put back. */
async function resolveReconfigure(c: StackContext, stack: string | null, detail: JobDetail, ctx: JobContext): Promise<string> {
  const loc = stack ? c.store.find(stack) : null;
  if (!loc) return "the app's folder is gone: nothing to roll back";
  if ((detail.phase === 'passwords' || detail.phase === 'up') && typeof detail.snapshot === 'string') await setBackPasswords(c, loc, detail.snapshot, ctx);
  const r = restoreRecorded(c, loc, detail, ctx, 'reconfigure');
  const said = ['at' in r ? `rolled back to the snapshot of ${r.at}` : r.none];
  try {
    await c.up(projectOf(c, loc), ctx, KADE_ITSELF);
  } catch (err) {
    said.push(`starting the app failed: ${errorMessage(err)}`);
  }
  const dbs = await putDatabasesBack(c, detail, ctx);
  if (dbs) said.push(dbs);
  return said.join('; ');
}

function resolveSnapshotRestore(c: StackContext, stack: string | null, detail: JobDetail, ctx: JobContext): string {
  const loc = stack ? c.store.find(stack) : null;
  if (!loc) return "the app's folder is gone: nothing to roll back";
  const r = restoreRecorded(c, loc, detail, ctx, 'snapshot restore');
  return 'at' in r ? `rolled back to the snapshot of ${r.at}` : r.none;
}

/** Install temp folders left by a crash are removed, never shown as an app. */
function resolveInstall(c: StackContext, name: string, ctx: JobContext): string {
  for (const t of c.store.cleanInstallTemps((app) => app === name)) ctx.log(`removed the half-written folder ${t}`);
  if (c.store.find(name)) return "the install was cut off after the app's folder was written: start the app or remove it";
  return "the install was cut off before the app's folder was written: nothing was left behind";
}

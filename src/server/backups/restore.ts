/**
 * Restore of a backup (SPEC flows: restore): judged as the acting user first (restore-judge.ts); verified while it is
 * extracted into a new folder, in one read of the archive (hostile entries refused with nothing kept); the app stopped, its folder (swapped by the stack store) and data moved aside, the archive's
 * moved in, started, the dumps loaded. Any failure, or a crash (at the next start, restoreResolver), puts the
 * moved-aside state back.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { JobT } from '../../shared/api.ts';
import type { BackupT } from '../../shared/backups.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, errorMessage, isAppError } from '../core/errors.ts';
import type { Actor } from '../core/events.ts';
import { failpoint } from '../core/failpoint.ts';
import type { JobContext, Resolver } from '../jobs/jobs.service.ts';
import { KADE_ITSELF } from '../stacks/gate/compose-gate.ts';
import type { FolderSwap } from '../stacks/store/folder-ops.ts';
import type { BackupStacks, BackupsDeps } from './backups.service.ts';
import { checkStaged, type JudgedFiles, judgeArchive } from './restore-judge.ts';

/** What a restore moves where, recorded before the first move so a crash can be undone. */
interface RestorePlan {
  stack: string;
  staging: string;
  liveStack: string;
  liveData: string;
  asideStack: string;
  asideData: string;
  stackExisted: boolean;
  dataExisted: boolean;
  /** The app's seal before the restore (file-seal.ts): put back with its folder on a rollback. */
  seal?: string | null;
}

/** The swap of the app's folder a plan records (plans from before seals were kept have no `seal`). */
const swapOf = (plan: RestorePlan): FolderSwap => ({
  name: plan.stack,
  live: plan.liveStack,
  aside: plan.asideStack,
  existed: plan.stackExisted,
  ...(plan.seal !== undefined ? { seal: plan.seal } : {}),
});

/** What the restore needs of the backups service: a backup, its archive, and a note in its metadata. */
export interface RestoreLookup {
  get(id: string): BackupT;
  archiveOf(id: string): string;
  annotate(id: string, fields: Record<string, unknown>): void;
}

type Located = ReturnType<BackupStacks['locate']>;

/** The app as it is now, or null when it does not exist (a deleted app comes back from its backup). */
function locateOrNull(d: BackupsDeps, name: string): Located | null {
  try {
    return d.stacks.locate(name);
  } catch (err) {
    if (!isAppError(err) || err.code !== 'not_found') throw err;
    return null;
  }
}

/** What the restore moves where, with the swap of the app's folder the stack store planned. */
function planRestore(d: BackupsDeps, stack: string): { plan: RestorePlan; swap: FolderSwap } {
  const tag = randomBytes(4).toString('hex');
  const swap = d.stacks.swap.plan(stack, tag);
  const liveData = join(d.settings.dataDir, stack);
  const plan: RestorePlan = {
    stack,
    staging: join(d.settings.libraryDir, `.restore-${stack}-${tag}`),
    liveStack: swap.live,
    liveData,
    asideStack: swap.aside,
    asideData: join(d.settings.dataDir, `.aside-${stack}-${tag}`),
    stackExisted: swap.existed,
    dataExisted: existsSync(liveData),
    seal: swap.seal ?? null,
  };
  return { plan, swap };
}

/**
 * The archive extracted into the staging folder in one pass that also verifies it (noted in the backup's
 * metadata; a refusal stops the restore with nothing kept), and its compose file and `.env` the bytes judged.
 */
async function stageArchive(
  d: BackupsDeps,
  r: RestoreLookup,
  b: { id: string; archive: string; judged: JudgedFiles },
  staging: string,
  ctx: JobContext,
): Promise<void> {
  try {
    await d.archive.extract(b.archive, staging);
  } catch (err) {
    if (!isAppError(err) || err.code !== 'archive_refused') throw err;
    r.annotate(b.id, { verified: false, verified_at: d.clock().toISOString() });
    const { entry, reason } = err.params as { entry?: string; reason?: string };
    throw new AppError('validation', `backup ${b.id} failed verification, so it is not restored: ${entry ? `${entry}: ` : ''}${reason ?? err.message}`, {
      params: { id: b.id },
      cause: err,
    });
  }
  r.annotate(b.id, { verified: true, verified_at: d.clock().toISOString() });
  try {
    checkStaged(join(staging, 'stack'), b.judged);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  ctx.log(`backup ${b.id} verified and extracted into a staging folder; its compose file and .env are the ones judged`);
  ctx.progress(0.2);
}

/** The app stopped, its folder and data moved aside, the archive's moved in and started. */
async function moveIn(
  d: BackupsDeps,
  plan: RestorePlan,
  swap: FolderSwap,
  oldProject: Located['project'] | null,
  ctx: JobContext,
  actor: Actor,
): Promise<void> {
  const restoredData = existsSync(join(plan.staging, 'appdata'));
  if (oldProject) {
    ctx.log('stopping the app');
    await d.stacks.stop(oldProject, ctx, actor);
  }
  ctx.record({ phase: 'move' });
  d.stacks.swap.aside(swap);
  if (restoredData && plan.dataExisted) renameSync(plan.liveData, plan.asideData);
  failpoint('restore.aside');
  // The archive's files were judged as this user before the job: sealed as theirs.
  d.stacks.swap.moveIn(swap, join(plan.staging, 'stack'), actor);
  if (restoredData) renameSync(join(plan.staging, 'appdata'), plan.liveData);
  failpoint('restore.moved');
  ctx.log('the app folder and data are the backup’s; the old ones are kept aside until the restore succeeds');
  const now = d.stacks.locate(plan.stack);
  if (!now.project) throw new AppError('conflict', `the backup of '${plan.stack}' has no compose file`, { params: { stack: plan.stack } });
  await d.stacks.up(now.project, ctx, actor);
  failpoint('restore.up');
  ctx.progress(0.6);
}

/** Each dump of the archive loaded into its database once that answers. */
async function loadDumps(d: BackupsDeps, plan: RestorePlan, ctx: JobContext): Promise<void> {
  const dumpsDir = join(plan.staging, 'dumps');
  if (!existsSync(dumpsDir)) return;
  const dbs = await d.stacks.databases(plan.stack);
  for (const file of readdirSync(dumpsDir)) {
    const service = file.replace(/\.sql$/, '');
    const db = dbs.find((x) => x.service === service);
    if (!db?.containerId) throw new AppError('conflict', `the database '${service}' of the backup does not run after the start`, { params: { service } });
    ctx.log(`loading the dump of '${service}' once the database answers`);
    await db.load(createReadStream(join(dumpsDir, file)));
    failpoint('restore.dump');
    ctx.log(`the ${db.kind} database of '${service}' holds the dump's data`);
  }
}

/** The restore job: verified, staged, moved in, the dumps loaded; any failure puts the previous state back. */
async function restoreJob(
  d: BackupsDeps,
  r: RestoreLookup,
  job: { actor: Actor; id: string; stack: string; archive: string; judged: JudgedFiles; oldProject: Located['project'] | null },
  ctx: JobContext,
): Promise<void> {
  const { actor, id, stack } = job;
  const { plan, swap } = planRestore(d, stack);
  // Recorded before the first move: after a crash the resolver puts exactly these folders back (restoreResolver).
  ctx.record({ restore: JSON.stringify(plan), phase: 'extract' });
  await stageArchive(d, r, job, plan.staging, ctx);
  try {
    await moveIn(d, plan, swap, job.oldProject, ctx, actor);
    await loadDumps(d, plan, ctx);
  } catch (err) {
    ctx.log(`restore failed: ${errorMessage(err)}; putting the previous state back`);
    await putBack(d, plan, ctx, actor);
    d.events.emit({ type: 'backup.restored', actor, source: 'backups', target: stack, status: 'failed', detail: { id } });
    throw err;
  }
  ctx.record({ phase: 'done' });
  finish(d, plan);
  d.events.emit({ type: 'backup.restored', actor, source: 'backups', target: stack, status: 'ok', detail: { id } });
}

/**
 * Restore: the archive's compose file and `.env` judged as `actor` installing them would be (a refusal answers the
 * request, no job starts); then verified while it is extracted into a new folder (hostile entries refused with
 * nothing kept); the app stopped, its folder and data moved aside, the archive's moved in, started, the dumps loaded.
 * Any failure puts the moved-aside state back and starts it again. `confirm` is an admin's `confirm_outside_paths`.
 */
async function restore(d: BackupsDeps, r: RestoreLookup, actor: Actor, id: string, confirm?: readonly string[]): Promise<JobT> {
  requireRole(actor, 'operator', 'restoring a backup');
  const b = r.get(id);
  // A deleted app comes back from its backup: there is then nothing to move aside.
  const loc = locateOrNull(d, b.stack);
  if (loc?.adopted) {
    throw new AppError('conflict', `'${b.stack}' was adopted: Kade does not write into its folder, so its backup is restored by hand from the download`, {
      params: { stack: b.stack },
    });
  }
  const archive = r.archiveOf(id);
  const judged = await judgeArchive(actor, archive, b.stack, confirm, d.stacks);
  const job = { actor, id, stack: b.stack, archive, judged, oldProject: loc?.project ?? null };
  return d.jobs.start({ kind: 'backup.restore', stack: b.stack, actor }, (ctx) => restoreJob(d, r, job, ctx));
}

/**
 * The state before a restore, from its plan alone (also after a crash): whatever runs from the restored folder
 * stops, the folders moved aside go back (or, for an app that did not exist, the restored ones go), the staging
 * folder goes, and the app starts again.
 */
async function putBack(d: BackupsDeps, plan: RestorePlan, ctx: JobContext, actor: Actor): Promise<void> {
  const now = locateOrNull(d, plan.stack);
  if (now?.project) await d.stacks.down(now.project, ctx, actor).catch(() => undefined);
  // The folder goes back with its seal (a plan from before seals were kept leaves the seal as it is).
  d.stacks.swap.putBack(swapOf(plan));
  if (existsSync(plan.asideData)) {
    rmSync(plan.liveData, { recursive: true, force: true });
    renameSync(plan.asideData, plan.liveData);
  } else if (!plan.dataExisted) rmSync(plan.liveData, { recursive: true, force: true });
  rmSync(plan.staging, { recursive: true, force: true });
  const again = locateOrNull(d, plan.stack);
  if (again?.project) await d.stacks.up(again.project, ctx, actor).catch((e: unknown) => ctx.log(`starting the previous state failed: ${errorMessage(e)}`));
  ctx.log(plan.stackExisted ? 'the previous state is back' : 'the app did not exist before the restore and is gone again');
}

/** Once the restore succeeded: the folder and data kept aside and the staging folder go. */
function finish(d: BackupsDeps, plan: RestorePlan): void {
  d.stacks.swap.done(swapOf(plan));
  for (const p of [plan.asideData, plan.staging]) rmSync(p, { recursive: true, force: true });
}

/** At start: a restore a crash cut off is rolled back to the state before it (recovery, jobs.recover). */
function resolverOf(d: BackupsDeps): Resolver {
  return async (_job, detail, ctx) => {
    let plan: RestorePlan | null = null;
    try {
      plan = typeof detail.restore === 'string' ? (JSON.parse(detail.restore) as RestorePlan) : null;
    } catch {
      plan = null;
    }
    if (!plan || typeof plan.liveStack !== 'string') return 'the restore was cut off before it moved anything: nothing to roll back';
    if (detail.phase === 'done') {
      finish(d, plan);
      return 'the restore had finished: its leftovers were removed';
    }
    await putBack(d, plan, ctx, KADE_ITSELF);
    return 'the restore was cut off: the app’s folder and data were put back as they were before it';
  };
}

export function createRestore(d: BackupsDeps, r: RestoreLookup) {
  return {
    restore: (actor: Actor, id: string, confirm?: readonly string[]) => restore(d, r, actor, id, confirm),
    restoreResolver: resolverOf(d),
  };
}

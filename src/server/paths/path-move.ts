import { basename, join } from 'node:path';
import type { JobT } from '../../shared/api.ts';
import type { PathMoveT } from '../../shared/settings.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import { failpoint } from '../core/failpoint.ts';
import type { ComposeProject, ComposeVariant } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { JobContext, JobsService, Resolver } from '../jobs/jobs.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { type ComposeGate, KADE_ITSELF } from '../stacks/gate/compose-gate.ts';
import { ENV_FILE, META_FILE } from '../stacks/store/stack-files.ts';
import type { FileChanges, StackStore } from '../stacks/store/stack-store.ts';
import { plan } from './move-plan.ts';
import { type KeyedMove, type MovedFolders, type MoveRecord, readRecord, safely } from './move-record.ts';
import { rewriteCompose, rewriteEnv, rewriteMeta } from './rewrite.ts';
import { compareTrees, copyTree, emptyTree, exists, makeTree, removeTree } from './tree.ts';

export interface PathMoveDeps {
  settings: SettingsService;
  /** The owner of the apps' folders in use (stacks/store/stack-store.ts). */
  store: StackStore;
  /** The owner of the apps' folders in another LIBRARY_DIR (the copy), sealing what it writes through `gate`. */
  storeFor: (libraryDir: string, gate: ComposeGate) => StackStore;
  stateDir: string;
  engine: Engine;
  /** The compose gate of the folders in use (compose-gate.ts). */
  gate: ComposeGate;
  /** A gate that judges with the new folders: the apps started from the copy are judged where they now are. */
  gateFor: (folders: MovedFolders) => ComposeGate;
  jobs: JobsService;
  events: EventBus;
  /** `compose up` through `gate` and wait until the containers run. */
  upProject: (p: ComposeProject, ctx: JobContext, actor: Actor, gate: ComposeGate) => Promise<void>;
  /** `compose down`, or the containers removed through the engine when the gate refuses the files. */
  downProject: (p: ComposeProject, ctx: JobContext, actor: Actor, gate: ComposeGate) => Promise<void>;
  /** Asks the process to build Kade again on the saved folders, once the job has ended. */
  restart: () => void;
}

/** The folders as they are once the moves are done. */
function newFolders(d: PathMoveDeps, moves: readonly KeyedMove[]): MovedFolders {
  const now = d.settings.pathsInUse();
  const out = { LIBRARY_DIR: now.LIBRARY_DIR, DATA_DIR: now.DATA_DIR, BACKUP_DIR: now.BACKUP_DIR };
  for (const m of moves) out[m.key] = m.to;
  return out;
}

const managedApps = (d: PathMoveDeps) =>
  d.store.names().filter((name) => {
    const loc = d.store.find(name);
    return loc !== null && !loc.adopted && loc.composeFile !== null;
  });

const projectIn = (libraryDir: string, name: string, file: string): ComposeProject => ({
  name,
  stack: name,
  dir: join(libraryDir, name),
  file: join(libraryDir, name, basename(file)),
});

function projectsOf(d: PathMoveDeps, rec: MoveRecord, libraryDir: string): Map<string, ComposeProject> {
  const out = new Map<string, ComposeProject>();
  for (const name of new Set([...rec.downed, ...rec.running])) {
    const file = d.store.find(name)?.composeFile;
    if (file) out.set(name, projectIn(libraryDir, name, file));
  }
  return out;
}

/**
 * Each app's compose file, `.env` and `.svc.json` get the new paths, each app's files atomically through the store:
 * in the copy when LIBRARY_DIR moves, else in place after a snapshot (recorded, so the undo puts them back byte
 * for byte). Adopted apps' folders are never written; a relative link of one is made absolute.
 */
function rewriteApps(
  d: PathMoveDeps,
  rec: MoveRecord,
  to: { newLibrary: string; oldLibrary: string; gate: ComposeGate; actor: Actor },
  variant: ComposeVariant,
  ctx: JobContext,
  save: () => void,
): void {
  const { newLibrary, oldLibrary } = to;
  const inPlace = newLibrary === oldLibrary;
  // Kade's own rewrite, judged where the files now are: sealed as the admin who moves.
  const target = d.storeFor(newLibrary, to.gate);
  const rewrites = {
    compose: (t: string) => rewriteCompose(t, rec.moves),
    env: (t: string) => rewriteEnv(t, rec.moves, variant),
    meta: (t: string) => safely(() => rewriteMeta(t, rec.moves), t),
  };
  for (const name of target.names()) {
    const loc = target.find(name);
    if (loc?.adopted) target.absoluteLink(name, oldLibrary);
    const original = d.store.find(name);
    if (!loc || loc.adopted || !original || original.adopted) continue;
    const changes: FileChanges = {};
    const written: string[] = [];
    for (const key of ['compose', 'env', 'meta'] as const) {
      const text = target.read(loc, key);
      const next = text === null ? null : rewrites[key](text);
      if (next === null || next === text) continue;
      changes[key] = next;
      written.push(key === 'compose' ? basename(loc.composeFile ?? '') : key === 'env' ? ENV_FILE : META_FILE);
    }
    if (written.length === 0) continue;
    target.write(loc, changes, {
      actor: to.actor,
      ...(inPlace ? { snapshot: 'path move' } : {}),
      beforeWrite: (snap) => {
        if (snap) rec.snapshots[name] = snap.id;
        rec.seals[name] = d.store.sealText(name);
        save();
      },
    });
    ctx.log(`${name}: paths rewritten in ${written.join(', ')}`);
  }
}

/** Puts the state before the move back: the apps' containers from the copy removed, the copy removed, the apps started where they were. */
async function undo(d: PathMoveDeps, rec: MoveRecord, ctx: JobContext, actor: Actor): Promise<void> {
  const lib = rec.moves.find((m) => m.key === 'LIBRARY_DIR');
  const oldLibrary = lib?.from ?? d.settings.pathsInUse().LIBRARY_DIR;
  const next = d.gateFor(newFolders(d, rec.moves));
  // Containers made from the new files (the copy, or the rewritten files in place) go first.
  for (const p of projectsOf(d, rec, lib?.to ?? oldLibrary).values()) {
    if (exists(p.file))
      await d.downProject(p, ctx, actor, next).catch((e: unknown) => ctx.log(`removing ${p.name}'s new containers failed: ${errorMessage(e)}`));
  }
  for (const [name, id] of Object.entries(rec.snapshots)) {
    const loc = d.store.find(name);
    if (loc) d.store.restore(loc, id);
    ctx.log(`${name}: files put back from the snapshot taken before the move`);
  }
  for (const [name, text] of Object.entries(rec.seals)) d.store.putSealText(name, text);
  for (const m of rec.moves) {
    if (!exists(m.to)) continue;
    emptyTree(m.to);
    ctx.log(`removed the copy in ${m.to}`);
  }
  const old = projectsOf(d, rec, oldLibrary);
  for (const name of rec.running) {
    const p = old.get(name);
    if (!p) continue;
    ctx.log(`starting '${name}' again from ${p.dir}`);
    await d.upProject(p, ctx, actor, d.gate).catch((e: unknown) => ctx.log(`starting '${name}' again failed: ${errorMessage(e)}`));
  }
}

/** Once the new folders are saved: the old ones go. A folder that cannot be removed is said, not an error. */
function removeOld(rec: MoveRecord, ctx: JobContext): void {
  for (const m of rec.moves) {
    try {
      removeTree(m.from);
      ctx.log(`removed the old ${m.key} ${m.from}`);
    } catch (e) {
      ctx.log(`the old ${m.key} ${m.from} could not be removed (${errorMessage(e)}); remove it by hand`);
    }
  }
}

/** The running apps recorded, then every app with containers brought down (they are made again from the new folders). */
async function stopApps(d: PathMoveDeps, rec: MoveRecord, oldLibrary: string, ctx: JobContext, actor: Actor, save: () => void): Promise<void> {
  for (const name of managedApps(d)) {
    const cs = await d.engine.listContainers({ project: name });
    if (cs.length === 0) continue;
    if (cs.some((c) => c.state === 'running')) rec.running.push(name);
    rec.downed.push(name);
  }
  save();
  for (const [name, p] of projectsOf(d, rec, oldLibrary)) {
    ctx.log(`stopping '${name}' (its containers are made again from the new folders)`);
    await d.downProject(p, ctx, actor, d.gate);
  }
}

/** Each folder copied to its new place and compared with the original entry by entry. */
async function copyFolders(moves: readonly KeyedMove[], ctx: JobContext): Promise<void> {
  for (const m of moves) {
    makeTree(m.to);
    if (!exists(m.from)) continue;
    ctx.log(`copying ${m.from} to ${m.to}`);
    await copyTree(m.from, m.to);
    ctx.log(`verifying the copy of ${m.key}`);
    const diffs = await compareTrees(m.from, m.to);
    if (diffs.length > 0) throw new AppError('conflict', `the copy of ${m.key} differs from the original: ${diffs.join('; ')}`, { params: { path: m.to } });
  }
}

/** The apps that ran before the move started from the new folders, judged by the gate of the new folders. */
async function startApps(d: PathMoveDeps, rec: MoveRecord, newLibrary: string, ctx: JobContext, actor: Actor, next: ComposeGate): Promise<void> {
  const fresh = projectsOf(d, rec, newLibrary);
  for (const name of rec.running) {
    const p = fresh.get(name);
    if (!p) continue;
    ctx.log(`starting '${name}' from ${p.dir}`);
    await d.upProject(p, ctx, actor, next);
  }
}

/** The new folders saved as the settings, the record switched, the old folders removed. */
function switchFolders(d: PathMoveDeps, rec: MoveRecord, ctx: JobContext, actor: Actor, save: () => void): void {
  d.settings.update(actor, Object.fromEntries(rec.moves.map((m) => [m.key, m.to])));
  rec.phase = 'switched';
  save();
  ctx.log('the new folders are saved as the settings');
  failpoint('paths.switched');
  removeOld(rec, ctx);
  d.events.emit({ type: 'paths.moved', actor, source: 'paths', target: 'paths', status: 'ok', detail: { keys: rec.moves.map((m) => m.key).join(',') } });
  ctx.log('Kade restarts to work in the new folders');
}

async function work(d: PathMoveDeps, actor: Actor, moves: KeyedMove[], ctx: JobContext): Promise<void> {
  const libMove = moves.find((m) => m.key === 'LIBRARY_DIR');
  const oldLibrary = d.settings.pathsInUse().LIBRARY_DIR;
  const newLibrary = libMove?.to ?? oldLibrary;
  const touchesApps = moves.some((m) => m.key !== 'BACKUP_DIR');
  const rec: MoveRecord = { moves, running: [], downed: [], snapshots: {}, seals: {}, phase: 'copying' };
  const next = d.gateFor(newFolders(d, moves));
  const save = () => ctx.record({ path_move: JSON.stringify(rec) });
  for (const m of moves) ctx.log(`moving ${m.key} from ${m.from} to ${m.to}`);
  try {
    if (touchesApps) await stopApps(d, rec, oldLibrary, ctx, actor, save);
    else save();
    ctx.progress(0.2);
    failpoint('paths.stopped');
    await copyFolders(moves, ctx);
    ctx.progress(0.6);
    failpoint('paths.copied');
    if (touchesApps) rewriteApps(d, rec, { newLibrary, oldLibrary, gate: next, actor }, await next.compose.variant(), ctx, save);
    await startApps(d, rec, newLibrary, ctx, actor, next);
    ctx.progress(0.9);
    failpoint('paths.started');
  } catch (err) {
    ctx.log(`the move failed (${errorMessage(err)}): putting everything back where it was`);
    await undo(d, rec, ctx, actor);
    throw err;
  }
  switchFolders(d, rec, ctx, actor, save);
}

/** At start, for a move a crash cut off: before the switch everything goes back; after it the old folders are removed. */
function resolverOf(d: PathMoveDeps): Resolver {
  return async (_job, detail, ctx) => {
    const actor = KADE_ITSELF;
    const rec = readRecord(detail);
    if (!rec) return 'interrupted before it changed anything';
    if (rec.phase === 'switched') {
      removeOld(rec, ctx);
      return 'the move was complete; the old folders are removed';
    }
    await undo(d, rec, ctx, actor);
    return 'rolled back: the apps run from the old folders, the copy is removed';
  };
}

/**
 * The path move (SPEC flows): apps stopped, folders copied, the copy verified, paths rewritten in compose,
 * `.env` and `.svc.json` of the copy, apps started from the new folders, the new folders saved, and only
 * then the old ones removed; Kade then works in the new folders (a restart of the process, in place).
 * Until the settings are saved the old folders are never written to, so any failure (or a crash, at the
 * next start) only removes the copy and starts the apps again where they were.
 */
export function createPathMove(d: PathMoveDeps) {
  return {
    start(actor: Actor, req: PathMoveT): JobT {
      requireRole(actor, 'admin', 'moving folders');
      const moves = plan(d, actor, req);
      const job = d.jobs.startExclusive({ kind: 'paths.move', stack: null, actor }, (ctx) => work(d, actor, moves, ctx));
      void d.jobs.wait(job.id).then((j) => {
        if (j.state === 'succeeded') d.restart();
      });
      return job;
    },
    resolvers: { 'paths.move': resolverOf(d) } as Record<string, Resolver>,
  };
}

export type PathMoveService = ReturnType<typeof createPathMove>;

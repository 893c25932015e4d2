import { basename, isAbsolute, join } from 'node:path';
import { z } from 'zod';
import type { JobT } from '../../shared/api.ts';
import { isInside, normalisePath } from '../../shared/paths.ts';
import type { PathMoveT } from '../../shared/settings.ts';
import type { PathKey } from '../../shared/settings-keys.ts';
import { requireRole } from '../core/authorize.ts';
import { bytesBelow, deviceOf, freeFor } from '../core/disk.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import { failpoint } from '../core/failpoint.ts';
import type { ComposeProject, ComposeVariant } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { JobDetail } from '../jobs/job-log.ts';
import type { JobContext, JobsService, Resolver } from '../jobs/jobs.service.ts';
import type { SettingsService } from '../settings/settings.service.ts';
import { type ComposeGate, KADE_ITSELF } from '../stacks/gate/compose-gate.ts';
import { ENV_FILE, META_FILE } from '../stacks/store/stack-files.ts';
import type { FileChanges, StackStore } from '../stacks/store/stack-store.ts';
import { rewriteCompose, rewriteEnv, rewriteMeta } from './rewrite.ts';
import { compareTrees, copyTree, emptyTree, exists, isEmptyDir, makeTree, removeTree } from './tree.ts';

/** App names as the record holds them (checked again when read back after a crash). */
const NAME = /^[a-z0-9][a-z0-9_-]*$/;
const KEYS = ['LIBRARY_DIR', 'DATA_DIR', 'BACKUP_DIR'] as const satisfies readonly PathKey[];
const MoveRecordSchema = z.object({
  moves: z.array(z.object({ key: z.enum(KEYS), from: z.string().startsWith('/'), to: z.string().startsWith('/') })),
  /** Apps that ran before the move: started again wherever the move ends. */
  running: z.array(z.string().regex(NAME)),
  /** Apps whose containers were removed to be made again from the new folders. */
  downed: z.array(z.string().regex(NAME)),
  /** Snapshots of apps whose files were rewritten in place (LIBRARY_DIR stays), by app. */
  snapshots: z.record(z.string().regex(NAME), z.string()),
  /** The seals of apps whose files were rewritten, as they were before (file-seal.ts): the undo puts them back. */
  seals: z.record(z.string().regex(NAME), z.string().nullable()).default({}),
  /** `copying` until the new folders are saved as the settings; `switched` after. */
  phase: z.enum(['copying', 'switched']),
});
/** What the job records before its first change, so a crash can be undone (or finished) at the next start. */
type MoveRecord = z.infer<typeof MoveRecordSchema>;
type KeyedMove = MoveRecord['moves'][number];

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
  gateFor: (folders: Record<(typeof KEYS)[number], string>) => ComposeGate;
  jobs: JobsService;
  events: EventBus;
  /** `compose up` through `gate` and wait until the containers run. */
  upProject: (p: ComposeProject, ctx: JobContext, actor: Actor, gate: ComposeGate) => Promise<void>;
  /** `compose down`, or the containers removed through the engine when the gate refuses the files. */
  downProject: (p: ComposeProject, ctx: JobContext, actor: Actor, gate: ComposeGate) => Promise<void>;
  /** Asks the process to build Kade again on the saved folders, once the job has ended. */
  restart: () => void;
}

/**
 * The path move (SPEC flows): apps stopped, folders copied, the copy verified, paths rewritten in compose,
 * `.env` and `.svc.json` of the copy, apps started from the new folders, the new folders saved, and only
 * then the old ones removed; Kade then works in the new folders (a restart of the process, in place).
 * Until the settings are saved the old folders are never written to, so any failure (or a crash, at the
 * next start) only removes the copy and starts the apps again where they were.
 */
export function createPathMove(d: PathMoveDeps) {
  const inUse = () => d.settings.pathsInUse();
  /** The folders as they are once the moves are done. */
  const newFolders = (moves: readonly KeyedMove[]): Record<(typeof KEYS)[number], string> => {
    const now = inUse();
    const out = { LIBRARY_DIR: now.LIBRARY_DIR, DATA_DIR: now.DATA_DIR, BACKUP_DIR: now.BACKUP_DIR };
    for (const m of moves) out[m.key] = m.to;
    return out;
  };

  /** The request checked against the folders in use: refused with a clear reason before anything is touched. */
  function plan(actor: Actor, req: PathMoveT): KeyedMove[] {
    const now = inUse();
    const moves: KeyedMove[] = [];
    for (const key of KEYS) {
      const raw = req[key];
      if (raw === undefined || raw.trim() === '') continue;
      if (!isAbsolute(raw)) throw new AppError('validation', `${key}: '${raw}' is not an absolute path`, { params: { field: key, path: raw }, fields: [key] });
      const to = normalisePath(raw);
      if (to === now[key]) continue;
      moves.push({ key, from: now[key], to });
    }
    if (moves.length === 0) throw new AppError('validation', 'nothing to move: every folder given is the one in use', { fields: [...KEYS] });

    const kade = [...KEYS.map((k) => now[k]), d.stateDir];
    for (const m of moves) {
      const refuse = (why: string, code: 'validation' | 'conflict' = 'validation') => {
        throw new AppError(code, `${m.key}: ${m.to} ${why}`, { params: { field: m.key, path: m.to }, fields: [m.key] });
      };
      const c = d.settings.checkPath(actor, m.to, m.key);
      if (!c.ok) refuse(`cannot be used (${c.reason ?? 'not usable'})${c.fix ? `; fix: ${c.fix}` : ''}`);
      if (kade.some((k) => isInside(m.to, k) || isInside(k, m.to))) refuse("lies inside one of Kade's folders or holds one");
      if (moves.some((o) => o !== m && (isInside(m.to, o.to) || isInside(o.to, m.to)))) refuse('overlaps another new folder');
      if (exists(m.to) && !isEmptyDir(m.to)) refuse('is not empty: move into a new or empty folder', 'conflict');
    }
    // Adopted apps stay where the user keeps them: their folder must not be inside a folder that goes away.
    for (const a of d.store.adoptedPaths()) {
      const m = moves.find((x) => isInside(a.path, x.from));
      if (m)
        throw new AppError('conflict', `app '${a.name}' was adopted from ${a.path}, which lies inside ${m.key}; move it out first`, {
          params: { stack: a.name, path: a.path },
          fields: [m.key],
        });
    }
    // The copy needs the space of everything copied on each target disk (old and new share a disk: both exist for a while).
    const needs = new Map<number, { bytes: number; free: number; where: string }>();
    for (const m of moves) {
      const dev = deviceOf(m.to);
      const cur = needs.get(dev) ?? { bytes: 0, free: freeFor(m.to).free, where: m.to };
      cur.bytes += bytesBelow(m.from);
      needs.set(dev, cur);
    }
    for (const n of needs.values()) {
      if (n.bytes > n.free) {
        throw new AppError('disk_full', `not enough space for the move: ${mb(n.bytes)} to copy, ${mb(n.free)} free at ${n.where}`, {
          params: { path: n.where, needed: n.bytes, free: n.free },
        });
      }
    }
    return moves;
  }

  const managedApps = () =>
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

  function projectsOf(rec: MoveRecord, libraryDir: string): Map<string, ComposeProject> {
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
  async function undo(rec: MoveRecord, ctx: JobContext, actor: Actor): Promise<void> {
    const lib = rec.moves.find((m) => m.key === 'LIBRARY_DIR');
    const oldLibrary = lib?.from ?? inUse().LIBRARY_DIR;
    const next = d.gateFor(newFolders(rec.moves));
    // Containers made from the new files (the copy, or the rewritten files in place) go first.
    for (const p of projectsOf(rec, lib?.to ?? oldLibrary).values()) {
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
    const old = projectsOf(rec, oldLibrary);
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

  async function work(actor: Actor, moves: KeyedMove[], ctx: JobContext): Promise<void> {
    const libMove = moves.find((m) => m.key === 'LIBRARY_DIR');
    const oldLibrary = inUse().LIBRARY_DIR;
    const newLibrary = libMove?.to ?? oldLibrary;
    const touchesApps = moves.some((m) => m.key !== 'BACKUP_DIR');
    const rec: MoveRecord = { moves, running: [], downed: [], snapshots: {}, seals: {}, phase: 'copying' };
    const next = d.gateFor(newFolders(moves));
    const save = () => ctx.record({ path_move: JSON.stringify(rec) });
    for (const m of moves) ctx.log(`moving ${m.key} from ${m.from} to ${m.to}`);
    try {
      if (touchesApps) {
        for (const name of managedApps()) {
          const cs = await d.engine.listContainers({ project: name });
          if (cs.length === 0) continue;
          if (cs.some((c) => c.state === 'running')) rec.running.push(name);
          rec.downed.push(name);
        }
        save();
        for (const [name, p] of projectsOf(rec, oldLibrary)) {
          ctx.log(`stopping '${name}' (its containers are made again from the new folders)`);
          await d.downProject(p, ctx, actor, d.gate);
        }
      } else {
        save();
      }
      ctx.progress(0.2);
      failpoint('paths.stopped');
      for (const m of moves) {
        makeTree(m.to);
        if (!exists(m.from)) continue;
        ctx.log(`copying ${m.from} to ${m.to}`);
        await copyTree(m.from, m.to);
        ctx.log(`verifying the copy of ${m.key}`);
        const diffs = await compareTrees(m.from, m.to);
        if (diffs.length > 0) throw new AppError('conflict', `the copy of ${m.key} differs from the original: ${diffs.join('; ')}`, { params: { path: m.to } });
      }
      ctx.progress(0.6);
      failpoint('paths.copied');
      if (touchesApps) rewriteApps(rec, { newLibrary, oldLibrary, gate: next, actor }, await next.compose.variant(), ctx, save);
      const fresh = projectsOf(rec, newLibrary);
      for (const name of rec.running) {
        const p = fresh.get(name);
        if (!p) continue;
        ctx.log(`starting '${name}' from ${p.dir}`);
        await d.upProject(p, ctx, actor, next);
      }
      ctx.progress(0.9);
      failpoint('paths.started');
    } catch (err) {
      ctx.log(`the move failed (${errorMessage(err)}): putting everything back where it was`);
      await undo(rec, ctx, actor);
      throw err;
    }
    d.settings.update(actor, Object.fromEntries(moves.map((m) => [m.key, m.to])));
    rec.phase = 'switched';
    save();
    ctx.log('the new folders are saved as the settings');
    failpoint('paths.switched');
    removeOld(rec, ctx);
    d.events.emit({ type: 'paths.moved', actor, source: 'paths', target: 'paths', status: 'ok', detail: { keys: moves.map((m) => m.key).join(',') } });
    ctx.log('Kade restarts to work in the new folders');
  }

  /** At start, for a move a crash cut off: before the switch everything goes back; after it the old folders are removed. */
  const resolver: Resolver = async (_job, detail, ctx) => {
    const actor = KADE_ITSELF;
    const rec = readRecord(detail);
    if (!rec) return 'interrupted before it changed anything';
    if (rec.phase === 'switched') {
      removeOld(rec, ctx);
      return 'the move was complete; the old folders are removed';
    }
    await undo(rec, ctx, actor);
    return 'rolled back: the apps run from the old folders, the copy is removed';
  };

  return {
    start(actor: Actor, req: PathMoveT): JobT {
      requireRole(actor, 'admin', 'moving folders');
      const moves = plan(actor, req);
      const job = d.jobs.startExclusive({ kind: 'paths.move', stack: null, actor }, (ctx) => work(actor, moves, ctx));
      void d.jobs.wait(job.id).then((j) => {
        if (j.state === 'succeeded') d.restart();
      });
      return job;
    },
    resolvers: { 'paths.move': resolver } as Record<string, Resolver>,
  };
}

function readRecord(detail: JobDetail): MoveRecord | null {
  if (typeof detail.path_move !== 'string') return null;
  const r = MoveRecordSchema.safeParse(safely(() => JSON.parse(detail.path_move as string) as unknown, null));
  return r.success ? r.data : null;
}

function safely<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

export type PathMoveService = ReturnType<typeof createPathMove>;

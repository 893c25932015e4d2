import { join } from 'node:path';
import type { TemplateFileT } from '../../shared/template.ts';
import { notFound } from '../core/errors.ts';
import type { Actor } from '../core/events.ts';
import type { ComposeProject } from '../engine/compose.ts';
import type { JobContext } from '../jobs/jobs.service.ts';
import type { BindRules } from '../settings/bind-rules.ts';
import { type ComposeGate, createComposeGate } from './gate/compose-gate.ts';
import type { PrivilegedPolicy } from './policy/compose-policy.ts';
import type { StacksDeps } from './stacks.service.ts';
import { diskIO } from './store/disk-io.ts';
import { parseEnv } from './store/env-file.ts';
import { createSeals } from './store/file-seal.ts';
import { createStackDirs, type StackLocation } from './store/stack-dir.ts';
import type { StackMetaT } from './store/stack-files.ts';
import { createStackStore, type StackStore } from './store/stack-store.ts';
import { judgeFiles } from './use-cases/install.ts';
import { downEvenIfRefused, stopEvenIfRefused, type UpWait, upProject } from './use-cases/project-runs.ts';
import { createReconfigure } from './use-cases/reconfigure.ts';
import type { NetworksPort, StackContext } from './use-cases/stack-context.ts';

const NO_NETWORKS: NetworksPort = {
  isKade: () => false,
  ensure: async (name) => {
    throw notFound('network', name);
  },
  subnetOf: async () => ({ subnet: null, range: null, gateway: null }),
};

/** The folders a gate judges with (the path move's new ones, or those in use). */
export interface GateFolders {
  LIBRARY_DIR: string;
  DATA_DIR: string;
  BACKUP_DIR: string;
}

/** What the backups need of the apps (backups/stack-target.ts turns it into their BackupStacks): no store, no gate. */
export interface AppsForBackups {
  /** The app's folder (a link's target for an adopted app), its compose project and whether Kade owns the folder. */
  locate(name: string): { dir: string; adopted: boolean; project: ComposeProject | null; libraryPath: string };
  /** What an app's database dumps are read from: its compose document, `.env`, metadata and template; null without a compose file. */
  databaseSources(
    name: string,
  ): { project: string; compose: Record<string, unknown>; env: Record<string, string>; meta: StackMetaT | null; template: TemplateFileT | null } | null;
  /** `compose up` through the stacks' gate (as `actor`) and wait until the containers run. */
  up(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void>;
  /** `compose stop` through the gate; the engine stops the containers when the gate refuses the files. */
  stop(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void>;
  /** `compose down` through the gate; the engine removes the containers when the gate refuses the files. */
  down(p: ComposeProject, ctx: JobContext, actor: Actor): Promise<void>;
  /** The swap of an app's whole folder (a backup's restore), sealed as the restoring user's. */
  swap: StackStore['swap'];
  /** The policies of an install, as `actor`, on files from elsewhere (a backup's); throws the refusal. */
  judge(actor: Actor, name: string, files: { compose: string; env: string }, confirm: readonly string[] | undefined): void;
}

/** What the path move needs of the apps (paths/path-move.ts): the folders in use and those of the copy, each with its gate. */
export interface AppsForPathMove {
  store: StackStore;
  /** The owner of the apps' folders in another LIBRARY_DIR (the copy), sealing what it writes through `gate`. */
  storeFor: (libraryDir: string, gate: ComposeGate) => StackStore;
  gate: ComposeGate;
  /** A gate that judges with the new folders: the apps started from the copy are judged where they now are. */
  gateFor: (folders: GateFolders) => ComposeGate;
  upProject: (p: ComposeProject, ctx: JobContext, actor: Actor, gate: ComposeGate) => Promise<void>;
  downProject: (p: ComposeProject, ctx: JobContext, actor: Actor, gate: ComposeGate) => Promise<void>;
}

/** The bind policy's folders and the powers policy as they are now. */
function policiesOf(d: StacksDeps): { binds: BindRules; allowPrivileged: () => PrivilegedPolicy } {
  const binds: BindRules = {
    dataDir: d.dataDir,
    libraryDir: d.libraryDir,
    stateDir: d.stateDir,
    backupDir: d.backupDir,
    engineSocket: d.engineSocket,
    allowedHostDirs: d.allowedHostDirs,
  };
  return { binds, allowPrivileged: d.allowPrivileged ?? ((): PrivilegedPolicy => 'admins') };
}

/** The one owner of the apps' folders and the one gate in front of compose, with the builders for other folders. */
function foldersAndGate(d: StacksDeps, policies: ReturnType<typeof policiesOf>) {
  const io = d.io ?? diskIO();
  const seals = createSeals(io, join(d.stateDir, 'seals'));
  // Apps from before seals existed, found at start: sealed as found the first time they are judged (compose-gate.ts),
  // so a start with hundreds of them reads no compose file.
  const fromBefore = new Set(
    createStackDirs(io, d.libraryDir, d.stateDir)
      .names()
      .filter((name) => !seals.exists(name)),
  );
  /** A gate judging with other folders than those in use (the path move starts apps from the new ones). */
  const gateFor = (f: GateFolders): ComposeGate =>
    createComposeGate({
      fromBefore: (app) => fromBefore.has(app),
      compose: d.compose,
      io,
      seals,
      binds: { ...policies.binds, libraryDir: f.LIBRARY_DIR, dataDir: f.DATA_DIR, backupDir: f.BACKUP_DIR },
      allowPrivileged: policies.allowPrivileged,
      events: d.events,
      clock: d.clock,
    });
  const gate = gateFor({ LIBRARY_DIR: d.libraryDir, DATA_DIR: d.dataDir, BACKUP_DIR: d.backupDir });
  /** The owner of the apps' folders in `libraryDir`, sealing what it writes through `via` (the path move's new folders). */
  const storeFor = (libraryDir: string, via: ComposeGate) => createStackStore({ io, libraryDir, stateDir: d.stateDir, seals, sealer: via, clock: d.clock });
  return { gate, gateFor, store: storeFor(d.libraryDir, gate), storeFor };
}

/**
 * The lower half of the stacks module: the store, the gate, the policies and the context the use cases share, and
 * the narrow ports the backups and the path move are given. It needs nothing of the backups, so the composition
 * root builds it first, the backups on its port, then the stacks service (`StacksDeps.core`) with the backups' ports.
 */
export function createStacksCore(d: StacksDeps) {
  const policies = policiesOf(d);
  const { gate, gateFor, store, storeFor } = foldersAndGate(d, policies);
  const wait: UpWait = { timeoutMs: 60_000, ...(d.upPollMs === undefined ? {} : { intervalMs: d.upPollMs }) };
  const up = (p: ComposeProject, ctx: JobContext, actor: Actor, via: ComposeGate = gate) => upProject(d.engine, via, wait, p, ctx, actor);
  const context: StackContext = {
    store,
    catalogue: d.catalogue,
    engine: d.engine,
    compose: gate.compose,
    gate,
    jobs: d.jobs,
    events: d.events,
    clock: d.clock,
    prefill: { dataDir: d.dataDir, uid: d.uid, gid: d.gid },
    timezone: d.timezone,
    baseDir: d.baseDir,
    engineSocket: d.engineSocket,
    ...policies,
    networks: d.networks ?? NO_NETWORKS,
    backups: d.backupForChange ?? null,
    up: (p, ctx, actor) => up(p, ctx, actor),
  };
  const forPathMove: AppsForPathMove = {
    store,
    storeFor,
    gate,
    gateFor,
    upProject: up,
    downProject: (p, ctx, actor, via) => downEvenIfRefused(d.engine, via, p, ctx, actor),
  };
  return { context, wait, gateFor, storeFor, forBackups: appsForBackups(context), forPathMove };
}

export type StacksCore = ReturnType<typeof createStacksCore>;

function appsForBackups(c: StackContext): AppsForBackups {
  const { store } = c;
  // Reconfigure's own lookup of the template an app was installed from; it reads the catalogue only.
  const { sourceTemplate } = createReconfigure(c);
  /** The template, when its repo still has it (a backup reads its database declaration). */
  const templateOf = (loc: StackLocation): TemplateFileT | null => {
    const found = sourceTemplate(loc, store.meta(loc));
    return typeof found === 'object' ? found.template : null;
  };
  return {
    locate(name) {
      const loc = store.locate(name);
      return { dir: loc.dir, adopted: loc.adopted, libraryPath: loc.path, project: loc.composeFile ? store.project(loc) : null };
    },
    databaseSources(name) {
      const loc = store.locate(name);
      if (!loc.composeFile) return null;
      const template = loc.adopted ? null : templateOf(loc);
      return { project: store.project(loc).name, compose: store.composeDoc(loc), env: parseEnv(store.envText(loc)), meta: store.meta(loc), template };
    },
    up: (p, ctx, actor) => c.up(p, ctx, actor),
    stop: (p, ctx, actor) => stopEvenIfRefused(c.engine, c.gate, p, ctx, actor),
    down: (p, ctx, actor) => downEvenIfRefused(c.engine, c.gate, p, ctx, actor),
    swap: store.swap,
    judge: (actor, name, files, confirm) => judgeFiles(c, actor, name, files, confirm),
  };
}

import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { JobT, StackDetailT, StackT } from '../../shared/api.ts';
import { isSafeName } from '../../shared/names.ts';
import type { FieldValue } from '../../shared/template.ts';
import type { CatalogueService } from '../catalogue/catalogue.service.ts';
import { AppError, notFound } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { Logger } from '../core/logger.ts';
import type { Compose, ComposeProject } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import type { JobContext, JobsService } from '../jobs/jobs.service.ts';
import { prepareInstall, writeStackDir } from './install.ts';
import { groupByStack, listingOrNull, presentStack, sharedListing, stackNames } from './listing.ts';
import { composePath, META_FILE, readMeta } from './stack-files.ts';
import { waitUntilUp } from './wait.ts';

export interface StacksDeps {
  libraryDir: string;
  dataDir: string;
  uid: number;
  gid: number;
  timezone: () => string;
  engine: Engine;
  compose: Compose;
  jobs: JobsService;
  catalogue: CatalogueService;
  events: EventBus;
  logger: Logger;
  clock: () => Date;
  /** The update state the list shows, from the 6-hour result cache (updates/); 'unknown' when absent. */
  updateState?: (name: string) => StackT['update'];
}

export type StackOp = 'start' | 'stop' | 'restart';

export function checkName(name: string): void {
  if (!isSafeName(name)) {
    throw new AppError('invalid_name', `'${name}' is not a valid name: use lower-case letters, digits, _ and -`, { params: { name }, fields: ['name'] });
  }
}

/** Installed apps: their folders under LIBRARY_DIR are the truth; the engine says how they run. */
export function createStacksService(d: StacksDeps) {
  const listing = sharedListing(d.engine);
  const dirOf = (name: string) => join(d.libraryDir, name);
  const update = d.updateState ?? (() => 'unknown' as const);

  /** The cache status of every repo, read once per answer; a removed repo has none. */
  const repoStatuses = () => {
    const byId = new Map(d.catalogue.list().map((r) => [r.id, { commit: r.status.commit, outdated: r.outdated }]));
    return (repo: string) => byId.get(repo) ?? null;
  };

  function project(name: string): ComposeProject {
    checkName(name);
    const dir = dirOf(name);
    if (!existsSync(dir)) throw notFound('app', name);
    const file = composePath(dir);
    if (!file) throw new AppError('conflict', `app '${name}' has no compose file`, { params: { stack: name } });
    return { name, dir, file };
  }

  async function list(host: string): Promise<StackT[]> {
    const containers = await listingOrNull(listing, (msg) => d.logger.warn({ msg }, 'engine listing failed'));
    const groups = containers ? groupByStack(containers, d.libraryDir) : null;
    const repoStatus = repoStatuses();
    return stackNames(d.libraryDir).map((n) => {
      const { containers: _c, ...s } = presentStack(d.libraryDir, n, groups ? (groups.get(n) ?? []) : null, { host, repoStatus, update });
      return s;
    });
  }

  async function get(name: string, host: string): Promise<StackDetailT> {
    checkName(name);
    if (!existsSync(dirOf(name))) throw notFound('app', name);
    const containers = await listingOrNull(listing, () => undefined);
    const opts = { host, repoStatus: repoStatuses(), update };
    return presentStack(d.libraryDir, name, containers ? (groupByStack(containers, d.libraryDir).get(name) ?? []) : null, opts);
  }

  function install(actor: Actor, req: { repo: string; app: string; name: string; values: Record<string, FieldValue> }): JobT {
    checkName(req.name);
    if (existsSync(dirOf(req.name)))
      throw new AppError('name_taken', `an app named '${req.name}' exists already`, { params: { name: req.name }, fields: ['name'] });
    const loaded = d.catalogue.loadApp(req.repo, req.app);
    const prepared = prepareInstall({
      name: req.name,
      source: { repo: req.repo, app: req.app, commit: loaded.repo.commit },
      template: loaded.template,
      compose: loaded.compose,
      values: req.values,
      prefill: { dataDir: d.dataDir, uid: d.uid, gid: d.gid },
      timezone: d.timezone(),
      now: d.clock(),
    });
    return d.jobs.start({ kind: 'stack.install', stack: req.name, actor }, async (ctx) => {
      for (const s of prepared.secrets) ctx.mask(s);
      ctx.log(`installing ${req.repo}/${req.app} as '${req.name}'`);
      if (existsSync(dirOf(req.name))) throw new AppError('name_taken', `an app named '${req.name}' exists already`, { params: { name: req.name } });
      const dir = writeStackDir(d.libraryDir, prepared);
      ctx.log(`wrote ${dir}`);
      ctx.progress(0.2);
      const p = project(req.name);
      try {
        await d.compose.validate(p);
        await up(p, ctx);
        d.events.emit({ type: 'stack.installed', actor, source: 'store', target: req.name, status: 'ok', detail: { repo: req.repo, app: req.app } });
      } catch (err) {
        d.events.emit({ type: 'stack.installed', actor, source: 'store', target: req.name, status: 'failed', detail: { repo: req.repo, app: req.app } });
        throw err;
      }
    });
  }

  async function up(p: ComposeProject, ctx: JobContext): Promise<void> {
    ctx.log('starting containers');
    await d.compose.up(p, { onOutput: (t) => ctx.log(t) });
    ctx.progress(0.7);
    await waitUntilUp(d.engine, p.name, ctx, { timeoutMs: 60_000 });
  }

  function operate(actor: Actor, name: string, op: StackOp): JobT {
    const p = project(name);
    return d.jobs.start({ kind: `stack.${op}`, stack: name, actor }, async (ctx) => {
      const out = { onOutput: (t: string) => ctx.log(t) };
      if (op === 'start') await up(p, ctx);
      else if (op === 'stop') await d.compose.stop(p, out);
      else {
        await d.compose.restart(p, out);
        await waitUntilUp(d.engine, p.name, ctx, { timeoutMs: 60_000 });
      }
      d.events.emit({ type: `stack.${op}`, actor, source: 'stacks', target: name, status: 'ok' });
    });
  }

  function remove(actor: Actor, name: string, opts: { removeData: boolean }): JobT {
    checkName(name);
    const dir = dirOf(name);
    if (!existsSync(dir)) throw notFound('app', name);
    return d.jobs.start({ kind: 'stack.delete', stack: name, actor }, async (ctx) => {
      const file = composePath(dir);
      if (file) {
        ctx.log('stopping and removing containers');
        await d.compose.down({ name, dir, file }, { onOutput: (t) => ctx.log(t), volumes: opts.removeData });
      }
      ctx.progress(0.6);
      rmSync(dir, { recursive: true, force: true });
      ctx.log(`removed ${dir}`);
      if (opts.removeData) {
        const data = join(d.dataDir, name);
        rmSync(data, { recursive: true, force: true });
        ctx.log(`removed ${data}`);
      }
      d.events.emit({ type: 'stack.deleted', actor, source: 'stacks', target: name, status: 'ok', detail: { remove_data: opts.removeData } });
    });
  }

  /** Installed app names per source template (`repo/app`), from the stack files alone: no engine call. */
  function installedBySource(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const name of stackNames(d.libraryDir)) {
      const source = readMeta(join(dirOf(name), META_FILE))?.source;
      if (!source) continue;
      const key = `${source.repo}/${source.app}`;
      out.set(key, [...(out.get(key) ?? []), name]);
    }
    return out;
  }

  return { list, get, install, operate, remove, project, installedBySource };
}

export type StacksService = ReturnType<typeof createStacksService>;

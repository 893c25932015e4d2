import type { JobT } from '../../shared/api.ts';
import type { SelfUpdateStatusT } from '../../shared/self-update.ts';
import { isNewer, newestOnChannel, type UpdateChannel } from '../../shared/version.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError, errorMessage } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { JobContext, JobsService } from '../jobs/jobs.service.ts';
import type { RegistryClient, RegistryCredentials } from '../updates/registry-client.ts';
import type { SelfUpdateEngine } from './docker.ts';
import { HELPER_ENV, HELPER_SCRIPT, type HelperSpecT } from './helper-spec.ts';
import { readUpdateState } from './state-file.ts';
import { impossible, type TargetResult, type UpdateTarget, updateTarget } from './target.ts';

/** SPEC Limits: the availability check is cached one hour; a forced check skips the cache. */
export const CHECK_TTL_MS = 60 * 60 * 1000;

export interface SelfUpdateDeps {
  engine: SelfUpdateEngine;
  registry: Pick<RegistryClient, 'listTags'>;
  jobs: Pick<JobsService, 'startExclusive'>;
  events: EventBus;
  channel: () => UpdateChannel;
  credentials: () => RegistryCredentials | null;
  /** Kade's own container id (or prefix); null outside a container. */
  ownContainerId: string | null;
  /** The engine socket inside Kade's container; null when DOCKER_HOST is not a unix socket. */
  socketPath: string | null;
  /** SVC_DATA inside Kade's container. */
  stateDir: string;
  /** The running VERSION. */
  version: string;
  healthSeconds: number;
  helperDelayMs?: number;
  now?: () => number;
}

interface Check {
  key: string;
  at: number;
  latest: string | null;
  error: string | null;
}

/** The availability check last made, kept CHECK_TTL_MS. */
interface CheckCache {
  now: () => number;
  check: Check | null;
}

async function target(d: SelfUpdateDeps): Promise<TargetResult> {
  if (d.socketPath === null) return impossible('no_engine_socket', 'DOCKER_HOST is not a unix socket');
  if (d.ownContainerId === null) return impossible('not_in_container');
  let own: Awaited<ReturnType<SelfUpdateEngine['inspectOwn']>>;
  try {
    own = await d.engine.inspectOwn(d.ownContainerId);
  } catch (err) {
    // The Engine's not_found; a 404 from an engine fake that answers like the API.
    const missing = (err instanceof AppError && err.code === 'not_found') || (err as { statusCode?: number }).statusCode === 404;
    if (missing) return impossible('not_in_container', `container ${d.ownContainerId} is not known to the engine`);
    return impossible('no_engine_socket', errorMessage(err));
  }
  const digests = own.Config?.Image ? await d.engine.repoDigests(own.Config.Image).catch(() => []) : [];
  return updateTarget(own, digests, { socketPath: d.socketPath, stateDir: d.stateDir });
}

async function newest(d: SelfUpdateDeps, cache: CheckCache, t: UpdateTarget, channel: UpdateChannel, force: boolean): Promise<Check> {
  const { now, check: cached } = cache;
  const key = `${channel} ${t.name}`;
  if (!force && cached?.key === key && now() - cached.at < CHECK_TTL_MS) return cached;
  const tags = await d.registry.listTags({ registry: t.registry, repository: t.repository });
  cache.check = tags.ok ? { key, at: now(), latest: newestOnChannel(tags.tags, channel), error: null } : { key, at: now(), latest: null, error: tags.reason };
  return cache.check;
}

async function statusOf(d: SelfUpdateDeps, cache: CheckCache, force: boolean): Promise<{ status: SelfUpdateStatusT; target: UpdateTarget | null }> {
  const channel = d.channel();
  const t = await target(d);
  const saved = readUpdateState(d.stateDir);
  const base = { current: d.version, channel, previous: saved.previous, last: saved.last };
  if (!t.ok) {
    return {
      status: {
        ...base,
        latest: null,
        available: false,
        checked_at: null,
        possible: false,
        reason: t.reason,
        reason_code: t.code,
        image: null,
        check_error: null,
      },
      target: null,
    };
  }
  const c = await newest(d, cache, t.target, channel, force);
  return {
    status: {
      ...base,
      latest: c.latest,
      available: isNewer(c.latest, d.version),
      checked_at: new Date(c.at).toISOString(),
      possible: true,
      reason: null,
      reason_code: null,
      image: t.target.image,
      check_error: c.error,
    },
    target: t.target,
  };
}

/** Pulls `to` and hands over to the helper on it; the job ends once the helper runs (it then recreates Kade). */
async function handOver(d: SelfUpdateDeps, ctx: JobContext, t: UpdateTarget, spec: Omit<HelperSpecT, 'healthSeconds' | 'delayMs'>): Promise<void> {
  const image = `${t.name}:${spec.to}`;
  const creds = d.credentials();
  ctx.log(`pulling ${image}`);
  ctx.progress(0.1);
  await d.engine.pull(image, creds && creds.host === t.registry ? creds : null, (line) => ctx.log(line));
  ctx.progress(0.8);
  const full: HelperSpecT = { ...spec, healthSeconds: d.healthSeconds, delayMs: d.helperDelayMs ?? 2000 };
  const id = await d.engine.startHelper({
    name: `${t.project}-self-update`,
    image,
    cmd: ['node', HELPER_SCRIPT],
    env: [`${HELPER_ENV}=${JSON.stringify(full)}`],
    mounts: [t.socket, { type: 'bind', source: t.workingDir, destination: t.workingDir }, ...(t.data ? [t.data] : [])],
    labels: { 'kade.self-update': spec.action, 'com.docker.compose.project.of': t.project },
  });
  ctx.log(`helper container ${id.slice(0, 12)} started on ${image}: it writes SVC_TAG=${spec.to} and recreates Kade; Kade is away for a moment`);
}

function specOf(t: UpdateTarget, action: 'update' | 'rollback', to: string, previous: string | null) {
  return {
    action,
    from: t.tag,
    to,
    project: t.project,
    service: t.service,
    workingDir: t.workingDir,
    configFiles: t.configFiles,
    socketPath: t.socket.destination,
    stateDir: t.data?.destination ?? null,
    previous,
  } as const;
}

function refuse(reason: string, code: string): never {
  throw new AppError('conflict', reason, { params: { reason: code } });
}

/** POST /api/update: to the newest version on the channel (asked again, not from the cache). */
async function update(d: SelfUpdateDeps, cache: CheckCache, actor: Actor): Promise<JobT> {
  requireRole(actor, 'admin', 'updating Kade');
  const { status: s, target: t } = await statusOf(d, cache, true);
  if (!t) refuse(`Kade cannot update itself: ${s.reason}`, s.reason_code ?? 'impossible');
  if (s.check_error) refuse(`the registry could not be asked: ${s.check_error}`, 'registry');
  if (!s.available || !s.latest) refuse(`Kade ${d.version} is the newest version on the ${s.channel} channel`, 'newest');
  const to = s.latest;
  const job = d.jobs.startExclusive(
    { kind: 'self-update', stack: null, actor },
    (ctx) => handOver(d, ctx, t, specOf(t, 'update', to, s.previous)),
    'updating itself',
  );
  d.events.emit({ type: 'kade.update_started', actor, source: 'settings', target: 'kade', status: 'ok', detail: { from: t.tag, to } });
  return job;
}

/** POST /api/update/rollback: back to the tag the last update came from. */
async function rollback(d: SelfUpdateDeps, actor: Actor): Promise<JobT> {
  requireRole(actor, 'admin', 'updating Kade');
  const t = await target(d);
  if (!t.ok) refuse(`Kade cannot update itself: ${t.reason}`, t.code);
  const previous = readUpdateState(d.stateDir).previous;
  if (!previous) refuse('there is no previous version to roll back to', 'no_previous');
  const job = d.jobs.startExclusive(
    { kind: 'self-rollback', stack: null, actor },
    (ctx) => handOver(d, ctx, t.target, specOf(t.target, 'rollback', previous, previous)),
    'rolling itself back',
  );
  d.events.emit({ type: 'kade.rollback_started', actor, source: 'settings', target: 'kade', status: 'ok', detail: { from: t.target.tag, to: previous } });
  return job;
}

/** Kade's update of itself: availability per channel, and the update and rollback jobs that hand over to a helper container. */
export function createSelfUpdate(d: SelfUpdateDeps) {
  const cache: CheckCache = { now: d.now ?? Date.now, check: null };
  return {
    /** GET /api/update. */
    async status(actor: Actor, o: { force?: boolean } = {}): Promise<SelfUpdateStatusT> {
      requireRole(actor, 'admin', 'updating Kade');
      return (await statusOf(d, cache, o.force ?? false)).status;
    },
    /** POST /api/update: to the newest version on the channel (asked again, not from the cache). */
    update: (actor: Actor): Promise<JobT> => update(d, cache, actor),
    /** POST /api/update/rollback: back to the tag the last update came from. */
    rollback: (actor: Actor): Promise<JobT> => rollback(d, actor),
  };
}

export type SelfUpdateService = ReturnType<typeof createSelfUpdate>;

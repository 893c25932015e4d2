import type { Readable } from 'node:stream';
import { CONTAINER_ID_PATTERN, type ConnectableAppT, type ContainerEntryT } from '../../shared/api.ts';
import { roleAllows } from '../../shared/roles.ts';
import { requireRole } from '../core/authorize.ts';
import { AppError } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { ContainerSummary, Engine } from '../engine/engine.ts';
import { groupByApp, sharedListing, stackNames } from '../stacks/read/listing.ts';
import { parseEnv } from '../stacks/store/env-file.ts';
import type { StackDirs } from '../stacks/store/stack-dir.ts';
import type { StackStore } from '../stacks/store/stack-store.ts';
import { mergeFollowed, mergeStamped, readAll } from './log-lines.ts';
import { logSecretList, MASK, maskDeep, maskText, secretList } from './mask-secrets.ts';
import { isOwnId } from './own-container.ts';

export interface ContainersDeps {
  /** The apps' folders (LIBRARY_DIR) and their `.env`; adopted apps' containers carry their own project name. */
  store: StackDirs & Pick<StackStore, 'envText'>;
  engine: Engine;
  events: EventBus;
  /** Kade's own container id or id prefix, detected once at start; null outside a container. */
  ownContainerId: string | null;
}

export type ContainerOp = 'start' | 'stop' | 'restart';
export interface LogQuery {
  tail: number;
  since?: Date;
}

function checkId(id: string): void {
  if (!CONTAINER_ID_PATTERN.test(id)) throw new AppError('validation', `'${id}' is not a container id or name`, { params: { id }, fields: ['id'] });
}

/** Which managed stack each container belongs to, by the rule of the stacks listing. */
function stackOfEach(list: ContainerSummary[], dirs: StackDirs): Map<string, string> {
  const names = new Set(stackNames(dirs.libraryDir));
  const byId = new Map<string, string>();
  for (const [stack, members] of groupByApp(list, dirs)) {
    if (names.has(stack)) for (const c of members) byId.set(c.id, stack);
  }
  return byId;
}

const engineSince = (since: Date | undefined) => (since ? { since: Math.floor(since.getTime() / 1000) } : {});

/** The values of a container's environment (from its inspect). */
function envValues(info: Record<string, unknown>): string[] {
  const env = (info.Config as { Env?: unknown } | undefined)?.Env;
  return Array.isArray(env) ? env.filter((e): e is string => typeof e === 'string' && e.includes('=')).map((e) => e.slice(e.indexOf('=') + 1)) : [];
}

/** What the use cases below share: the dependencies, the one listing, and the count of followed engine streams. */
interface Ctx extends ContainersDeps {
  listAll: () => Promise<ContainerSummary[]>;
  // Engine log streams held open for followers: a stream must close when its follower goes or is cut off.
  streams: { open: number };
}

/** Every container on the host, managed or not: list, inspect, operate, delete, logs. */
export function createContainersService(d: ContainersDeps) {
  const c: Ctx = { ...d, listAll: sharedListing(d.engine, { composeOnly: false }), streams: { open: 0 } };
  return {
    list: (actor: Actor) => list(c, actor),
    inspect: (actor: Actor, id: string) => inspect(c, actor, id),
    operate: (actor: Actor, id: string, op: ContainerOp) => operate(c, actor, id, op),
    remove: (actor: Actor, id: string) => remove(c, actor, id),
    logText: (actor: Actor, id: string, q: LogQuery) => logText(c, actor, id, q),
    followLogs: (actor: Actor, id: string, q: LogQuery) => followLogs(c, actor, id, q),
    stackLogText: (actor: Actor, name: string, q: LogQuery) => stackLogText(c, actor, name, q),
    followStackLogs: (actor: Actor, name: string, q: LogQuery) => followStackLogs(c, actor, name, q),
    connectable: (actor: Actor) => connectable(c, actor),
    /** How many engine log streams followers hold open now (a debug figure the load tests read). */
    openLogStreams: () => c.streams.open,
  };
}

const present = (d: Ctx, c: ContainerSummary, stack: string | undefined): ContainerEntryT => ({
  id: c.id,
  name: c.name,
  image: c.image,
  state: c.state,
  status: c.status,
  health: c.health,
  ports: c.ports,
  created: new Date(c.created * 1000).toISOString(),
  project: c.project,
  service: c.service,
  stack: stack ?? null,
  managed: stack !== undefined,
  own: isOwnId(d.ownContainerId, c.id),
});

/** One engine listing of all containers; the managed flag from their compose labels. */
async function list(d: Ctx, actor: Actor): Promise<ContainerEntryT[]> {
  requireRole(actor, 'viewer', 'the container list');
  const all = await d.listAll();
  const stacks = stackOfEach(all, d.store);
  return all.map((c) => present(d, c, stacks.get(c.id))).sort((a, b) => a.name.localeCompare(b.name));
}

/** The secret values of the app a container belongs to: the `.env` values its metadata maps from secret fields. */
function stackSecrets(d: Ctx, info: Record<string, unknown>): string[] {
  const labels = ((info.Config as { Labels?: Record<string, string> } | undefined)?.Labels ?? {}) as Record<string, string>;
  const summary = { project: labels['com.docker.compose.project'] ?? null, workingDir: labels['com.docker.compose.project.working_dir'] ?? null };
  const stack = [...groupByApp([{ ...summary, id: String(info.Id ?? '') } as ContainerSummary], d.store).keys()][0];
  const loc = stack && stackNames(d.store.libraryDir).includes(stack) ? d.store.find(stack) : null;
  if (!loc) return [];
  const env = parseEnv(d.store.envText(loc));
  const keys = Object.values(d.store.meta(loc)?.secret_env ?? {});
  return keys.map((k) => env[k]).filter((v): v is string => typeof v === 'string');
}

/** What a non-admin must not read of a container: its environment's values and its app's secrets. */
const hiddenValues = (d: Ctx, info: Record<string, unknown>) => [...stackSecrets(d, info), ...envValues(info)];

/**
 * The values masked in these containers' logs: none for an admin; for everyone else what inspect hides,
 * as an app that prints its environment (or a secret) would otherwise show it in its log.
 */
async function logSecrets(d: Ctx, actor: Actor, ids: string[]): Promise<string[]> {
  if (roleAllows(actor.role, 'admin')) return [];
  const infos = await Promise.all(ids.map((id) => d.engine.inspectContainer(id)));
  return logSecretList(infos.flatMap((info) => hiddenValues(d, info)));
}

/**
 * The engine's inspect. Environment values are shown to admins only, as they may hold secrets; for
 * everyone else those values, and the app's secrets, are masked wherever they appear (command,
 * labels, health check, arguments).
 */
async function inspect(d: Ctx, actor: Actor, id: string): Promise<Record<string, unknown>> {
  requireRole(actor, 'viewer', 'inspecting a container');
  checkId(id);
  const info = await d.engine.inspectContainer(id);
  if (roleAllows(actor.role, 'admin')) return info;
  const masked = maskDeep(info, secretList(hiddenValues(d, info))) as Record<string, unknown>;
  const maskedConfig = masked.Config as { Env?: unknown } | undefined;
  if (!maskedConfig || !Array.isArray(maskedConfig.Env)) return masked;
  const env = maskedConfig.Env.map((e) => (typeof e === 'string' ? `${e.split('=')[0]}=${MASK}` : e));
  return { ...masked, Config: { ...maskedConfig, Env: env } };
}

/** Resolves a name or id to the container, refusing Kade's own one for anything but start. */
async function target(d: Ctx, actor: Actor, id: string, op: ContainerOp | 'delete'): Promise<{ id: string; name: string }> {
  requireRole(actor, 'operator', `${op} of a container`);
  checkId(id);
  const info = await d.engine.inspectContainer(id);
  const fullId = String(info.Id ?? id);
  const name = String(info.Name ?? id).replace(/^\//, '');
  if (op !== 'start' && isOwnId(d.ownContainerId, fullId)) {
    throw new AppError('own_container', `'${name}' is Kade's own container; Kade cannot ${op} itself`, { params: { name, op } });
  }
  return { id: fullId, name };
}

async function operate(d: Ctx, actor: Actor, id: string, op: ContainerOp): Promise<void> {
  const c = await target(d, actor, id, op);
  const emit = (status: 'ok' | 'failed') =>
    d.events.emit({ type: `container.${op}`, actor, source: 'containers', target: c.name, status, detail: { id: c.id } });
  try {
    if (op === 'start') await d.engine.startContainer(c.id);
    else if (op === 'stop') await d.engine.stopContainer(c.id);
    else await d.engine.restartContainer(c.id);
  } catch (err) {
    emit('failed');
    throw err;
  }
  emit('ok');
}

/** Removes the container only (forced); its volumes and image stay. */
async function remove(d: Ctx, actor: Actor, id: string): Promise<void> {
  const c = await target(d, actor, id, 'delete');
  try {
    await d.engine.removeContainer(c.id);
  } catch (err) {
    d.events.emit({ type: 'container.deleted', actor, source: 'containers', target: c.name, status: 'failed', detail: { id: c.id } });
    throw err;
  }
  d.events.emit({ type: 'container.deleted', actor, source: 'containers', target: c.name, status: 'ok', detail: { id: c.id } });
}

async function logText(d: Ctx, actor: Actor, id: string, q: LogQuery): Promise<string> {
  requireRole(actor, 'viewer', 'container logs');
  checkId(id);
  const secrets = await logSecrets(d, actor, [id]);
  const text = await readAll(await d.engine.containerLogs(id, { tail: q.tail, ...engineSince(q.since) }));
  // Masked line by line, as the followed log is: the same secrets hide in both.
  return secrets.length === 0
    ? text
    : text
        .split('\n')
        .map((line) => maskText(line, secrets))
        .join('\n');
}

async function followEngine(d: Ctx, id: string, q: LogQuery): Promise<NodeJS.ReadableStream> {
  const stream = await d.engine.containerLogs(id, { tail: q.tail, follow: true, ...engineSince(q.since) });
  d.streams.open += 1;
  (stream as Readable).once('close', () => {
    d.streams.open -= 1;
  });
  return stream;
}

/** A followed log as text lines; reading it slowly slows the engine, destroying it closes the engine stream. */
async function followLogs(d: Ctx, actor: Actor, id: string, q: LogQuery): Promise<Readable> {
  requireRole(actor, 'viewer', 'container logs');
  checkId(id);
  const secrets = await logSecrets(d, actor, [id]);
  return mergeFollowed([{ prefix: '', stream: await followEngine(d, id, q) }], secrets);
}

async function stackContainers(d: Ctx, name: string): Promise<ContainerSummary[]> {
  d.store.locate(name);
  const all = await d.engine.listContainers({ composeOnly: true });
  return (groupByApp(all, d.store).get(name) ?? []).sort((a, b) => a.name.localeCompare(b.name));
}
const prefixOf = (c: ContainerSummary) => c.service ?? c.name;

/** An app's containers, and the values masked in their logs for this user. */
async function stackMembers(d: Ctx, actor: Actor, name: string): Promise<{ members: ContainerSummary[]; secrets: string[] }> {
  requireRole(actor, 'viewer', 'app logs');
  const members = await stackContainers(d, name);
  const secrets = await logSecrets(
    d,
    actor,
    members.map((c) => c.id),
  );
  return { members, secrets };
}

/** The logs of an app's containers in time order, each line prefixed with its service. */
async function stackLogText(d: Ctx, actor: Actor, name: string, q: LogQuery): Promise<string> {
  const { members, secrets } = await stackMembers(d, actor, name);
  const parts = await Promise.all(
    members.map(async (c) => ({
      prefix: prefixOf(c),
      text: await readAll(await d.engine.containerLogs(c.id, { tail: q.tail, timestamps: true, ...engineSince(q.since) })),
    })),
  );
  return mergeStamped(parts, secrets);
}

async function followStackLogs(d: Ctx, actor: Actor, name: string, q: LogQuery): Promise<Readable> {
  const { members, secrets } = await stackMembers(d, actor, name);
  const opened = await Promise.allSettled(members.map(async (c) => ({ prefix: prefixOf(c), stream: await followEngine(d, c.id, q) })));
  const parts = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const failed = opened.find((r) => r.status === 'rejected');
  if (failed) {
    // One container could not be followed: the streams already open must not stay open without a reader.
    for (const p of parts) (p.stream as Readable).destroy();
    throw failed.reason;
  }
  return mergeFollowed(parts, secrets);
}

/** Installed apps with the names of their containers, from one listing: what another app can reach. */
async function connectable(d: Ctx, actor: Actor): Promise<ConnectableAppT[]> {
  requireRole(actor, 'viewer', 'the connectable apps');
  const groups = groupByApp(await d.engine.listContainers({ composeOnly: true }), d.store);
  return stackNames(d.store.libraryDir).map((stack) => {
    const loc = d.store.find(stack);
    const source = loc ? d.store.meta(loc)?.source : null;
    return {
      stack,
      source: source ? { repo: source.repo, app: source.app } : null,
      containers: (groups.get(stack) ?? []).map((c) => c.name).sort(),
    };
  });
}

export type ContainersService = ReturnType<typeof createContainersService>;

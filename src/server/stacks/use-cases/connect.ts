/**
 * Connect (SPEC flows: connect): an app joins or leaves one of Kade's shared networks. The choice is kept in
 * `.svc.json` (re-applied by every reconfigure), the compose result validated and the app restarted; when
 * compose or the engine refuses (unknown network, address taken), the snapshot taken before the write puts every
 * file back byte for byte and the old configuration starts again. An adopted app gets its networks from an override
 * file in Kade's own state, so nothing is written into the user's folder.
 */
import { stringify } from 'yaml';
import type { JobT } from '../../../shared/api.ts';
import { parseIPv4 } from '../../../shared/cidr.ts';
import type { ConnectRequestT } from '../../../shared/networks.ts';
import type { SnapshotT } from '../../../shared/stack-config.ts';
import { requireRole } from '../../core/authorize.ts';
import { AppError, errorMessage, notFound } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { failpoint } from '../../core/failpoint.ts';
import type { JobContext } from '../../jobs/jobs.service.ts';
import { addressProblems } from '../../networks/networks.service.ts';
import { stringifyCompose } from '../../templates/yaml-out.ts';
import type { StackLocation } from '../store/stack-dir.ts';
import type { StackMetaT } from '../store/stack-files.ts';
import type { FileChanges } from '../store/stack-store.ts';
import { applyChoices, type NetworkJoins, serviceJoins } from './choices.ts';
import type { StackContext } from './stack-context.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Planned {
  loc: StackLocation;
  files: FileChanges;
  summary: string;
}

/** Every service's joins in the current format (`networks` per service), from either format. */
function normalisedMeta(meta: StackMetaT): StackMetaT {
  const services: StackMetaT['services'] = {};
  for (const [svc, choice] of Object.entries(meta.services)) {
    const { shared_network: _s, ip: _i, ...rest } = choice;
    const joins = serviceJoins(meta, svc);
    services[svc] = Object.keys(joins).length > 0 ? { ...rest, networks: joins } : rest;
  }
  return { ...meta, services };
}

/** Leaving: the network goes from every service's joins and from the app's networks. */
function planLeave(name: string, network: string, next: StackMetaT): string {
  if (!next.networks.includes(network)) {
    throw new AppError('validation', `app '${name}' is not on network '${network}'`, {
      params: { stack: name, network },
      fields: ['network'],
    });
  }
  for (const choice of Object.values(next.services)) {
    if (!choice.networks) continue;
    delete choice.networks[network];
    if (Object.keys(choice.networks).length === 0) delete choice.networks;
  }
  next.networks = next.networks.filter((n) => n !== network);
  return `leaving network '${network}'`;
}

/** The services that join: those asked for, else every service without a network_mode of its own. */
function joiningServices(name: string, defs: Obj, asked: readonly string[] | undefined): string[] {
  const all = Object.keys(defs);
  const targets = asked ?? all.filter((s) => isObj(defs[s]) && (defs[s] as Obj).network_mode === undefined);
  for (const s of targets) {
    if (!all.includes(s)) throw new AppError('validation', `the app has no service '${s}'`, { params: { service: s }, fields: ['services'] });
    const mode = (defs[s] as Obj).network_mode;
    if (mode !== undefined) {
      throw new AppError('validation', `service '${s}' uses network_mode '${String(mode)}', so it cannot join a network`, {
        params: { service: s, mode: String(mode) },
        fields: ['services'],
      });
    }
  }
  if (targets.length === 0) throw new AppError('validation', `app '${name}' has no service that can join a network`, { fields: ['services'] });
  return [...targets];
}

/** An own address for the one joining service: an IPv4 address the network's plan allows. */
async function checkOwnAddress(c: StackContext, network: string, ip: string, targets: readonly string[]): Promise<void> {
  if (targets.length !== 1) throw new AppError('validation', 'an own address needs exactly one service', { fields: ['ip', 'services'] });
  const n = parseIPv4(ip);
  if (n === null) throw new AppError('validation', `ip: '${ip}' is not an IPv4 address such as 192.168.1.20`, { params: { ip }, fields: ['ip'] });
  const first = addressProblems(ip, n, await c.networks.subnetOf(network))[0];
  if (first) throw new AppError('validation', `ip: ${first.message}`, { params: { ip, code: first.code }, fields: ['ip'] });
}

/** Joining: the network joins the chosen services (with an own address for one) and the app's networks. */
async function planJoin(c: StackContext, name: string, req: Exclude<ConnectRequestT, { disconnect: true }>, defs: Obj, next: StackMetaT) {
  const targets = joiningServices(name, defs, req.services);
  const ip = req.ip?.trim() || null;
  if (ip) await checkOwnAddress(c, req.network, ip, targets);
  for (const s of targets) {
    const choice = next.services[s] ?? {};
    const joins: NetworkJoins = { ...(choice.networks ?? {}) };
    joins[req.network] = ip ? { ip } : {};
    next.services[s] = { ...choice, networks: joins };
  }
  if (!next.networks.includes(req.network)) next.networks = [...next.networks, req.network];
  return `joining network '${req.network}' with ${targets.join(', ')}${ip ? ` at ${ip}` : ''}`;
}

/** The files the change writes, checked before any job: bad input leaves nothing behind. */
async function plan(c: StackContext, name: string, req: ConnectRequestT): Promise<Planned> {
  const loc = c.store.locate(name);
  const meta = c.store.meta(loc);
  if (!meta || !loc.composeFile) {
    throw new AppError('conflict', `app '${name}' has no ${meta ? 'compose file' : 'metadata'}, so it cannot join a network`, { params: { stack: name } });
  }
  if (!c.networks.isKade(req.network)) {
    throw notFound('network', req.network);
  }
  const doc = c.store.composeDoc(loc);
  const defs = isObj(doc.services) ? doc.services : {};
  const next = normalisedMeta(meta);
  const summary = 'disconnect' in req ? planLeave(name, req.network, next) : await planJoin(c, name, req, defs, next);
  const metaText = `${JSON.stringify(next, null, 2)}\n`;
  if (loc.adopted) return { loc, summary, files: { override: adoptedOverride(doc, next), meta: metaText } };
  const shared = new Set([...meta.networks, req.network]);
  return { loc, summary, files: { compose: stringifyCompose(applyChoices(withoutShared(doc, shared), next)), meta: metaText } };
}

/** The job's work: snapshot and write, validate, restart; on a failure the snapshot back and the old configuration started. */
async function applyPlanned(c: StackContext, actor: Actor, name: string, req: ConnectRequestT, p: Planned, ctx: JobContext): Promise<void> {
  const leaving = 'disconnect' in req;
  ctx.log(p.summary);
  let started = false;
  const taken: { snapshot?: SnapshotT } = {};
  try {
    c.store.write(p.loc, p.files, {
      actor,
      snapshot: 'connect',
      beforeWrite: (s) => {
        if (!s) return;
        taken.snapshot = s;
        // Recorded before the first write: after a crash the recovery rolls back to exactly this snapshot (recovery.ts).
        ctx.record({ snapshot: s.id, phase: 'files' });
        ctx.log(`snapshot ${s.id} taken of ${s.files.join(', ')}`);
      },
    });
    ctx.log('wrote the compose file and the metadata');
    const project = c.store.project(p.loc);
    failpoint('connect.file');
    await c.compose.validate(project, { actor });
    ctx.log('compose file is valid');
    if (!leaving) await c.networks.ensure(req.network);
    ctx.progress(0.3);
    started = true;
    await c.up(project, ctx, actor);
  } catch (err) {
    ctx.log(`${leaving ? 'leaving' : 'joining'} network '${req.network}' failed: ${errorMessage(err)}`);
    await putBack(c, actor, p, taken.snapshot, started, ctx);
    c.events.emit({ type: 'stack.connected', actor, source: 'stacks', target: name, status: 'failed', detail: { network: req.network, disconnect: leaving } });
    throw err;
  }
  c.events.emit({ type: 'stack.connected', actor, source: 'stacks', target: name, status: 'ok', detail: { network: req.network, disconnect: leaving } });
}

/** The files as the snapshot holds them (the seal follows them back), and the previous configuration started again. */
async function putBack(c: StackContext, actor: Actor, p: Planned, snapshot: SnapshotT | undefined, started: boolean, ctx: JobContext): Promise<void> {
  if (snapshot) {
    c.store.restore(p.loc, snapshot.id);
    ctx.log(`restored snapshot ${snapshot.id}: the files are as they were`);
  }
  if (started) {
    await c.compose
      .up(c.store.project(p.loc), { onOutput: (t) => ctx.log(t), actor })
      .then(() => ctx.log('the previous configuration runs again'))
      .catch((e: unknown) => ctx.log(`starting the previous configuration failed: ${errorMessage(e)}`));
  }
}

export function createConnect(c: StackContext) {
  /** Checked before the job (bad input leaves nothing behind), then a job that writes, validates and restarts. */
  async function connect(actor: Actor, name: string, req: ConnectRequestT): Promise<JobT> {
    requireRole(actor, 'operator', 'connecting an app to a network');
    const p = await plan(c, name, req);
    return c.jobs.start({ kind: 'stack.connect', stack: name, actor }, (ctx) => applyPlanned(c, actor, name, req, p, ctx));
  }

  return { connect };
}

/** The compose document without the shared networks Kade added, so they can be applied anew. */
function withoutShared(doc: Obj, shared: Set<string>): Obj {
  const out = structuredClone(doc);
  for (const svc of Object.values(isObj(out.services) ? out.services : {})) {
    if (!isObj(svc) || !isObj(svc.networks)) continue;
    for (const n of shared) delete svc.networks[n];
    const keys = Object.keys(svc.networks);
    if (keys.length === 0 || (keys.length === 1 && keys[0] === 'default' && svc.networks.default === null)) delete svc.networks;
  }
  if (isObj(out.networks)) {
    for (const n of shared) {
      const def = out.networks[n];
      if (isObj(def) && def.external === true) delete out.networks[n];
    }
    if (Object.keys(out.networks).length === 0) delete out.networks;
  }
  return out;
}

/**
 * The override compose reads after an adopted app's own file: per joining service its networks (with
 * `default` kept when the service had no `networks` of its own, since an override's list replaces the
 * implicit default), the shared ones declared external. Null when the app is on no shared network.
 */
export function adoptedOverride(doc: Obj, meta: StackMetaT): string | null {
  const defs = isObj(doc.services) ? doc.services : {};
  const services: Obj = {};
  const used = new Set<string>();
  for (const svc of Object.keys(meta.services)) {
    const joins = serviceJoins(meta, svc);
    const def = defs[svc];
    if (!isObj(def) || Object.keys(joins).length === 0 || def.network_mode !== undefined) continue;
    const nets: Obj = def.networks === undefined ? { default: {} } : {};
    for (const [n, j] of Object.entries(joins)) {
      nets[n] = j.ip ? { ipv4_address: j.ip } : {};
      used.add(n);
    }
    services[svc] = { networks: nets };
  }
  if (used.size === 0) return null;
  const networks = Object.fromEntries([...used].map((n) => [n, { external: true }]));
  // Compose v1 refuses files of different versions: the override says the version the user's file says.
  const version = typeof doc.version === 'string' || typeof doc.version === 'number' ? { version: String(doc.version) } : {};
  return `# Written by Kade: the shared networks of this adopted app. Edit them in Kade, not here.\n${stringify({ ...version, services, networks })}`;
}

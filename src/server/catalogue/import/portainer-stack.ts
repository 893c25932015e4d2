/**
 * Portainer's stack templates (type 3 compose stacks, type 2 swarm stacks) as Kade compose templates: the stack
 * file from the same repo, its variables as fields, host folders onto the app's data folder, swarm-only parts
 * dropped where a single host runs the stack the same, and refused where it would not.
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { appdataParts, OWNER_LABEL, parsePort, readOnlyFlag, readOnlyMode, refuse, subPath } from './portainer-common.ts';
import { type Entry, fromPlain, type Item, lit, map, type Node, type Part, seq, text } from './portainer-emit.ts';
import { dataParts, leadingVar, stackParts, type VarFields, type VarKind } from './portainer-fields.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_STACK_BYTES = 256 * 1024;

/** The stack file at `stackfile` below `root`, parsed; refused when it leaves the repo or cannot be read. */
export function readStackFile(root: string, stackfile: string): { doc: Obj; dir: string } {
  const path = resolve(root, stackfile.replace(/^\/+/, ''));
  const rel = relative(resolve(root), path);
  if (rel.startsWith('..') || rel === '') throw refuse(`stack file ${stackfile} lies outside the repository`);
  if (!existsSync(path) || !lstatSync(path).isFile()) throw refuse(`stack file ${stackfile} is not in the repository`);
  if (lstatSync(path).size > MAX_STACK_BYTES) throw refuse(`stack file ${stackfile} is larger than 256 KiB`);
  const doc = parseDocument(readFileSync(path, 'utf8'), { uniqueKeys: true, merge: true });
  if (doc.errors[0]) throw refuse(`stack file ${stackfile} is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  const js = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!isObj(js) || !isObj(js.services) || Object.keys(js.services).length === 0) throw refuse(`stack file ${stackfile} has no services`);
  return { doc: js, dir: dirname(path) };
}

/** Deploy keys a single host honours the same way, or that only steer a swarm (dropped). */
const DEPLOY_DROPPED = new Set(['placement', 'update_config', 'rollback_config', 'endpoint_mode', 'labels']);
const SWARM_RESTART: Record<string, string> = { any: 'always', 'on-failure': 'on-failure', none: 'no' };

/** A swarm stack's service as compose runs it on one host, or a refusal saying why that would not be the same. */
function unswarm(name: string, svc: Obj, notes: Set<string>): void {
  if (!isObj(svc.deploy)) return;
  const deploy = { ...svc.deploy };
  // On every node of a swarm of one host is one container, which is what compose runs without replicas.
  if (deploy.mode === 'global') notes.add('deploy.mode global: one container on this host');
  if (deploy.replicas !== undefined && Number(deploy.replicas) !== 1) {
    throw refuse(`service ${name} runs ${String(deploy.replicas)} replicas, which compose on one host does not do the same way`);
  }
  delete deploy.replicas;
  delete deploy.mode;
  for (const k of Object.keys(deploy)) {
    if (DEPLOY_DROPPED.has(k)) {
      delete deploy[k];
      notes.add(`swarm-only deploy.${k} dropped`);
    }
  }
  if (isObj(deploy.restart_policy)) {
    const cond = String(deploy.restart_policy.condition ?? 'any');
    if (svc.restart === undefined) svc.restart = SWARM_RESTART[cond] ?? 'always';
    delete deploy.restart_policy;
  }
  const left = Object.keys(deploy).filter((k) => k !== 'resources');
  if (left.length) throw refuse(`service ${name} uses deploy.${left[0]}, which compose does not honour`);
  if (Object.keys(deploy).length) svc.deploy = deploy;
  else delete svc.deploy;
}

/** Refuses what names things outside the stack: external networks, volumes, secrets and configs, files of the repo. */
function checkTop(doc: Obj, swarm: boolean, notes: Set<string>): void {
  for (const top of ['networks', 'volumes', 'secrets', 'configs']) {
    const defs = isObj(doc[top]) ? doc[top] : {};
    for (const [n, d] of Object.entries(defs)) {
      if (!isObj(d)) continue;
      if (d.external) throw refuse(`${top}.${n} is external: it must exist before the stack, which Kade does not arrange`);
      if (d.file !== undefined) throw refuse(`${top}.${n} reads the file ${String(d.file)} of the repository, which Kade does not copy`);
      if (top === 'networks' && swarm && d.driver === 'overlay') {
        delete d.driver;
        delete d.attachable;
        notes.add('overlay networks run as bridge networks');
      }
      if (d.name !== undefined) {
        delete d.name;
        notes.add(`${top}.${n}.name dropped: each installed app gets its own`);
      }
    }
  }
}

/** Host paths of a service's volumes onto the data folder; a file of the repo cannot be bound (Kade does not copy it). */
function bindSource(source: string, readOnly: boolean, stackDir: string, notes: Set<string>): Part[] | null | 'keep' {
  if (source.startsWith('$')) return 'keep';
  if (source.startsWith('.') || source.startsWith('~')) {
    const local = join(stackDir, source.replace(/^~\/?/, ''));
    if (source.startsWith('.') && existsSync(local) && lstatSync(local).isFile()) {
      throw refuse(`binds the file ${source} of the repository, which Kade does not copy`);
    }
    notes.add('relative host folders moved to the data folder');
    return appdataParts(subPath(source));
  }
  if (source.startsWith('/')) {
    const parts = dataParts(source, notes, readOnly);
    if (!parts) notes.add(`${source} dropped: Kade sets TZ`);
    return parts;
  }
  return 'keep';
}

/** Splits `src:dst:mode` at colons outside `${...}`. */
function splitVolume(v: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i] as string;
    if (c === '$' && v[i + 1] === '{') depth++;
    if (c === '}' && depth > 0) depth--;
    if (c === ':' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

export interface StackContext {
  vars: VarFields;
  kinds: Map<string, VarKind>;
  notes: Set<string>;
  stackDir: string;
  /** A port field for a literal published port. */
  port: (spec: ReturnType<typeof parsePort> & object) => Item;
}

/** What each variable is used as (published host port, bind source), before the fields are made. */
export function varKinds(doc: Obj): Map<string, VarKind> {
  const kinds = new Map<string, VarKind>();
  for (const svc of Object.values(doc.services as Obj)) {
    if (!isObj(svc)) continue;
    for (const p of Array.isArray(svc.ports) ? svc.ports : []) {
      const m = typeof p === 'string' ? /^\$\{?([A-Za-z_][A-Za-z0-9_]*)(?::?-\d+)?\}?:\d+(\/\w+)?$/.exec(p) : null;
      if (m?.[1]) kinds.set(m[1], 'port');
    }
    for (const v of Array.isArray(svc.volumes) ? svc.volumes : []) {
      const split = typeof v === 'string' ? splitVolume(v) : [];
      const src = split.length > 1 ? split[0] : isObj(v) ? String(v.source ?? '') : '';
      const name = src ? leadingVar(src) : null;
      if (name) kinds.set(name, 'path');
    }
  }
  return kinds;
}

function convertVolume(v: unknown, ctx: StackContext, str: (s: string) => Node): Item | null {
  if (typeof v === 'string') {
    const parts = splitVolume(v);
    if (parts.length < 2) return str(v);
    const src = bindSource(parts[0] as string, readOnlyMode(parts[2]), ctx.stackDir, ctx.notes);
    if (src === null) return null;
    if (src === 'keep') return str(v);
    return text([...src, ...parts.slice(1).flatMap((p): Part[] => [{ lit: ':' }, ...(stackParts(p, ctx.vars) as Part[])])]);
  }
  if (isObj(v) && typeof v.source === 'string' && (v.type === 'bind' || v.source.startsWith('/') || v.source.startsWith('.'))) {
    const src = bindSource(v.source, readOnlyFlag(v.read_only), ctx.stackDir, ctx.notes);
    if (src === null) return null;
    const node = fromPlain(v, str);
    if (src !== 'keep' && node.k === 'map') {
      node.entries = node.entries.map((e) => ('key' in e && e.key === 'source' ? { key: 'source', value: text(src) } : e));
    }
    return node;
  }
  return fromPlain(v, str);
}

function convertPorts(list: unknown[], ctx: StackContext, str: (s: string) => Node): Item[] {
  return list.map((p) => {
    const spec = typeof p === 'string' || typeof p === 'number' ? parsePort(String(p)) : null;
    return spec?.host ? ctx.port(spec) : fromPlain(p, str);
  });
}

/** Labels by which Kade and compose tell an app's containers are theirs to set: dropped (an install would refuse them). */
function ownLabelsOnly(labels: Obj | unknown[], notes: Set<string>): Obj | unknown[] {
  const owner = (k: string) => {
    const own = OWNER_LABEL.test(k);
    if (own) notes.add(`label ${k} dropped: Kade and compose set it`);
    return own;
  };
  if (Array.isArray(labels)) return labels.filter((l) => !owner(String(l).split('=')[0] ?? ''));
  return Object.fromEntries(Object.entries(labels).filter(([k]) => !owner(k)));
}

/** One service: stack variables as fields, container_name and build refused or dropped, volumes and ports mapped. */
function convertService(name: string, svc: Obj, ctx: StackContext, str: (s: string) => Node): Node {
  if (svc.build !== undefined) throw refuse(`service ${name} builds its image from the repository, which Kade does not do`);
  if (svc.env_file !== undefined) throw refuse(`service ${name} reads an env_file of the repository, which Kade does not copy`);
  const entries: Entry[] = [];
  for (const [key, value] of Object.entries(svc)) {
    if (key === 'container_name') {
      ctx.notes.add('container_name dropped: compose names the containers after the app');
      continue;
    }
    if (key === 'labels' && (isObj(value) || Array.isArray(value))) {
      entries.push({ key, value: fromPlain(ownLabelsOnly(value, ctx.notes), str) });
      continue;
    }
    if (key === 'volumes' && Array.isArray(value)) {
      entries.push({ key, value: seq(value.map((v) => convertVolume(v, ctx, str)).filter((v): v is Item => v !== null)) });
    } else if (key === 'ports' && Array.isArray(value)) entries.push({ key, value: seq(convertPorts(value, ctx, str)) });
    else entries.push({ key, value: fromPlain(value, str) });
  }
  return map(entries);
}

/** The stack as a compose tree. `swarm`: a type 2 template, judged for what one host runs the same. */
export function convertStack(doc: Obj, swarm: boolean, ctx: StackContext): Extract<Node, { k: 'map' }> {
  checkTop(doc, swarm, ctx.notes);
  const str = (s: string): Node => {
    const parts = stackParts(s, ctx.vars);
    return parts.every((p) => 'lit' in p) ? lit(parts.map((p) => (p as { lit: string }).lit).join('')) : text(parts);
  };
  const entries: Entry[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'version' || key === 'name') continue;
    if (key !== 'services') {
      entries.push({ key, value: fromPlain(value, str) });
      continue;
    }
    const services: Entry[] = [];
    for (const [name, svc] of Object.entries(value as Obj)) {
      if (!isObj(svc)) throw refuse(`service ${name} is not a mapping`);
      const s = { ...svc };
      if (swarm) unswarm(name, s, ctx.notes);
      services.push({ key: name, value: convertService(name, s, ctx, str) });
    }
    entries.push({ key, value: map(services) });
  }
  return map(entries) as Extract<Node, { k: 'map' }>;
}

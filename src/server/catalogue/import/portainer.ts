/**
 * Portainer app templates (v2 and v3 JSON, one file for the whole repo) as Kade apps: type 1 containers rendered
 * to compose, type 3 compose stacks and type 2 swarm stacks from stack files of the same repo.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TemplateFieldT, TemplateFileT } from '../../../shared/template.ts';
import { errorMessage } from '../../core/errors.ts';
import { categoriesOf } from '../derive-categories.ts';
import { sameRepo } from '../git-url.ts';
import { APPDATA_FIELD, clip, idAllocator, type PortSpec, parseMapped, plainText, refuse, slug, versionOf } from './portainer-common.ts';
import { containerBuild, portMaker, serviceEntries } from './portainer-container.ts';
import { emitCompose, lit, map, type Node } from './portainer-emit.ts';
import { envList, VarFields } from './portainer-fields.ts';

export { sameRepo };

import { convertStack, readStackFile, varKinds } from './portainer-stack.ts';
import type { ImportedApp, Refusal, RepoFileImporter } from './types.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_FILE_BYTES = 8 * 1024 * 1024;
const NAMED = ['templates.json', 'templates-2.0.json', 'templates-3.0.json'];

function readTemplatesFile(file: string): Obj | null {
  try {
    if (!lstatSync(file).isFile() || lstatSync(file).size > MAX_FILE_BYTES) return null;
    const doc = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return isObj(doc) && Array.isArray(doc.templates) && ['2', '3'].includes(String(doc.version)) ? doc : null;
  } catch {
    return null;
  }
}

/** The templates file at the repo root: a known name first, else any JSON file of version 2 or 3 with templates. */
export function detectPortainer(root: string): string | null {
  for (const name of NAMED) if (existsSync(join(root, name)) && readTemplatesFile(join(root, name))) return join(root, name);
  let names: string[] = [];
  try {
    names = readdirSync(root).filter((n) => n.endsWith('.json') && !NAMED.includes(n));
  } catch {
    return null;
  }
  for (const n of names.sort()) if (readTemplatesFile(join(root, n))) return join(root, n);
  return null;
}

/** The origin of a git checkout, read from its config (no git process), or undefined for a plain folder. */
function originOf(root: string): string | undefined {
  try {
    const config = readFileSync(join(root, '.git', 'config'), 'utf8');
    const section = /\[remote "origin"\]([^[]*)/.exec(config)?.[1] ?? '';
    return /^\s*url\s*=\s*(.+)$/m.exec(section)?.[1]?.trim();
  } catch {
    return undefined;
  }
}

function metadata(t: Obj, image: string | undefined) {
  const title = String(t.title ?? '').trim();
  const cats = Array.isArray(t.categories) ? t.categories.filter((c): c is string => typeof c === 'string' && c.trim() !== '') : [];
  const texts = [t.description, t.note].filter((x): x is string => typeof x === 'string').map(plainText);
  const description = clip(texts.filter(Boolean).join('\n\n'), 4000);
  const tags = [...new Set(cats.map((c) => clip(c.trim(), 40)))].slice(0, 30);
  return {
    name: clip(title, 100),
    description,
    version: versionOf(image),
    ...(typeof t.logo === 'string' && t.logo.length <= 2048 && t.logo ? { icon: t.logo } : {}),
    tags,
    metadata: {
      categories: categoriesOf(
        cats.map((c) => c.toLowerCase()),
        tags,
        `${title} ${description}`,
      ),
    },
  };
}

function webOf(fields: TemplateFieldT[], specs: Map<string, PortSpec>) {
  const web = fields.find((f) => f.type === 'port' && specs.get(f.id)?.proto !== 'udp' && f.default !== undefined);
  if (!web) return {};
  const container = Number(specs.get(web.id)?.container);
  return { web: { port_field: web.id, scheme: container === 443 || container === 8443 ? ('https' as const) : ('http' as const), path: '/' } };
}

/** A type 1 template: one container, every part of it written as compose (portainer-container.ts). */
function containerApp(t: Obj, id: string): ImportedApp {
  if (typeof t.image !== 'string' || !t.image.trim()) throw refuse('has no image');
  const b = containerBuild();
  const image = typeof t.registry === 'string' && t.registry && !t.image.includes('/') ? `${t.registry}/${t.image}` : t.image.trim();
  const svc = serviceEntries(t, image, b);
  const root = map([{ key: 'services', value: map([{ key: id, value: map(svc) }]) }]) as Extract<Node, { k: 'map' }>;
  if (b.named.size) root.entries.push({ key: 'volumes', value: map([...b.named].map((n) => ({ key: n, value: lit(null) }))) });
  const compose = emitCompose(root);
  if (compose.includes('{{appdata_dir}}')) b.fields.push(APPDATA_FIELD);
  return finish(id, { ...metadata(t, image), ...webOf(b.fields, b.specs), fields: b.fields }, compose, b.notes);
}

/** Type 2 and 3: the stack file of this repo, its variables as fields. */
function stackApp(t: Obj, id: string, root: string, swarm: boolean, origin: string | undefined): ImportedApp {
  const repo = isObj(t.repository) ? t.repository : null;
  if (!repo || typeof repo.stackfile !== 'string' || !repo.stackfile) throw refuse('has no repository.stackfile');
  if (typeof repo.url === 'string' && origin !== undefined && !sameRepo(repo.url, origin)) {
    throw refuse(`stack file lives in another repository ${repo.url}`);
  }
  const { doc, dir } = readStackFile(root, repo.stackfile);
  const notes = new Set<string>();
  const ports: TemplateFieldT[] = [];
  const specs = new Map<string, PortSpec>();
  const newId = idAllocator('_', ['appdata_dir']);
  const port = portMaker(newId, ports, specs);
  const kinds = varKinds(doc);
  const vars = new VarFields(envList(t.env), newId, kinds);
  const tree = convertStack(doc, swarm, { vars, kinds, notes, stackDir: dir, port });
  if (vars.undeclared.length) notes.add(`variables without an env entry became fields: ${vars.undeclared.join(', ')}`);
  const compose = emitCompose(tree);
  const fields = [...ports, ...vars.fields, ...(compose.includes('{{appdata_dir}}') ? [APPDATA_FIELD] : [])];
  const services = doc.services as Obj;
  const first = Object.values(services).find((x) => isObj(x) && typeof x.image === 'string') as Obj | undefined;
  return finish(id, { ...metadata(t, first?.image as string | undefined), ...webOf(fields, specs), fields }, compose, notes);
}

function finish(id: string, raw: Omit<TemplateFileT, 'format' | 'groups'>, compose: string, notes: Set<string>): ImportedApp {
  return { id, template: parseMapped(raw), compose, notes: [...notes] };
}

/** Every template of the file: imported, or refused with the reason. */
export function importPortainer(root: string, file: string): { apps: ImportedApp[]; refused: Refusal[] } {
  const doc = readTemplatesFile(file);
  if (!doc) return { apps: [], refused: [{ app: file, reason: 'not a Portainer templates file (version 2 or 3 with templates)' }] };
  const origin = originOf(root);
  const appId = idAllocator('-');
  const apps: ImportedApp[] = [];
  const refused: Refusal[] = [];
  (doc.templates as unknown[]).forEach((t, i) => {
    const o = isObj(t) ? t : {};
    const id = appId(slug(String(o.title ?? o.name ?? ''), `template-${i + 1}`));
    try {
      if (!isObj(t)) throw refuse('is not an object');
      if (typeof t.title !== 'string' || !t.title.trim()) throw refuse('has no title');
      const type = Number(t.type ?? 1);
      if (type === 1) apps.push(containerApp(t, id));
      else if (type === 2 || type === 3) apps.push(stackApp(t, id, root, type === 2, origin));
      else throw refuse(`type ${String(t.type)} is not 1 (container), 2 (swarm stack) or 3 (compose stack)`);
    } catch (e) {
      refused.push({ app: id, reason: errorMessage(e) });
    }
  });
  return { apps, refused };
}

export const portainerImporter: RepoFileImporter = { format: 'portainer', detect: detectPortainer, importAll: importPortainer };

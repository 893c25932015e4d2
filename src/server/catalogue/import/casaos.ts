/**
 * CasaOS app store apps: one compose file per folder with a top-level `x-casaos` (title, tagline, description in
 * locales such as en_us and nl_nl, category, icon, port_map) and per-service `x-casaos` describing envs, ports and
 * volumes. `$AppID`, `$PUID`, `$PGID` and `$TZ` are the platform's; `/DATA/AppData/$AppID/…` is the app's data folder.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isSafeName } from '../../../shared/names.ts';
import { type TemplateFieldT, TemplateFile, type TemplateFileT } from '../../../shared/template.ts';
import { readRegularFile } from '../../templates/load.ts';
import { categoriesOf } from '../derive-categories.ts';
import { APPDATA_FIELD, clip, displayText, ownerIdField, plainText, refuse, slug, tzField, versionOf } from './portainer-common.ts';
import { emitCompose, type Part } from './portainer-emit.ts';
import { convertCompose, filesOf, isObj, otherHostPath, Vars } from './source-compose.ts';
import type { AppFolderImporter, ImportedApp } from './types.ts';

type Obj = Record<string, unknown>;
const FILES = ['docker-compose.yml', 'docker-compose.yaml', 'compose.yml', 'compose.yaml'];

/** CasaOS's store categories onto Kade's; others are derived from the words. */
const CATEGORY: Record<string, string> = {
  ai: 'ai',
  analytics: 'monitoring',
  backup: 'backup',
  blog: 'productivity',
  chat: 'communication',
  cloud: 'backup',
  database: 'developer',
  developer: 'developer',
  documents: 'productivity',
  downloader: 'downloads',
  finance: 'finance',
  gallery: 'photos',
  games: 'gaming',
  gaming: 'gaming',
  home: 'home',
  'home automation': 'home',
  media: 'media',
  music: 'media',
  network: 'network',
  networking: 'network',
  notes: 'productivity',
  photos: 'photos',
  productivity: 'productivity',
  security: 'security',
  social: 'communication',
  utilities: '',
};

/** A locale map (`en_US`, `en_us`, `nl_NL`…) or a string as Kade's text: both languages when the source has Dutch. */
export function localized(v: unknown, max: number): string | { en: string; nl: string } | undefined {
  if (typeof v === 'string') return v.trim() ? clip(displayText(v.trim()), max) : undefined;
  if (!isObj(v)) return undefined;
  const byLang = new Map(Object.entries(v).map(([k, t]) => [k.toLowerCase().replace('-', '_'), typeof t === 'string' ? t.trim() : '']));
  const en = byLang.get('en_us') || byLang.get('en_gb') || byLang.get('en') || [...byLang.values()].find(Boolean);
  if (!en) return undefined;
  const nl = byLang.get('nl_nl') || byLang.get('nl');
  const c = (s: string) => clip(displayText(s), max);
  return nl ? { en: c(en), nl: c(nl) } : c(en);
}

const englishOf = (t: string | { en: string; nl: string } | undefined) => (t === undefined ? '' : typeof t === 'string' ? t : t.en);

function readCompose(dir: string): { doc: Obj; file: string } | null {
  for (const name of FILES) {
    const raw = readRegularFile(join(dir, name));
    if (raw === null) continue;
    return { doc: parseDoc(raw, name), file: name };
  }
  return null;
}

function parseDoc(raw: string, name: string): Obj {
  let doc: unknown;
  try {
    doc = parse(raw, { maxAliasCount: 100, uniqueKeys: true });
  } catch (e) {
    throw refuse(`${name} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw refuse(`${name} is not a mapping`);
  return doc;
}

/** The data folder of the app: `/DATA/AppData/$AppID` (or `${AppID}`, or the literal app id). */
const APPDATA = /^\/DATA\/AppData\/(?:\$\{?AppID\}?|[^/]+)(?=\/|$)/;

interface ServiceDocs {
  ports: Map<string, string>;
  envs: Map<string, string>;
}

function serviceDocs(svc: Obj): ServiceDocs {
  const x = isObj(svc['x-casaos']) ? svc['x-casaos'] : {};
  const list = (k: string) => (Array.isArray(x[k]) ? (x[k] as unknown[]).filter(isObj) : []);
  const describe = (o: Obj) => englishOf(localized(o.description, 500));
  return {
    ports: new Map(list('ports').map((o) => [String(o.container ?? ''), describe(o)])),
    envs: new Map(list('envs').map((o) => [String(o.container ?? ''), describe(o)])),
  };
}

export function importCasaos(dir: string, folder: string): ImportedApp {
  const found = readCompose(dir);
  if (!found) throw refuse('no compose file');
  const { doc } = found;
  const meta = isObj(doc['x-casaos']) ? doc['x-casaos'] : null;
  if (!meta) throw refuse('the compose file has no top-level x-casaos block');
  if (!isObj(doc.services)) throw refuse('the compose file has no services');
  const services = doc.services as Record<string, Obj>;
  const docs = new Map(Object.entries(services).map(([n, s]) => [n, serviceDocs(isObj(s) ? s : {})]));
  const c = casaosVars(meta);
  const tree = convert(doc, c, docs);
  describeEnvs(c.vars.fields, docs);
  const template = templateOf(c, services, folder);
  const checked = TemplateFile.safeParse(template);
  if (!checked.success) {
    const i = checked.error.issues[0];
    throw refuse(`the mapped template is not valid: ${i?.path.join('.')} ${i?.message}`);
  }
  const id = isSafeName(folder) ? folder : slug(folder);
  return { id, template: checked.data, compose: emitCompose(tree), notes: [...c.vars.notes], ...filesOf(c.vars) };
}

/** The variables of a CasaOS app, with the fields made for its platform's ($AppID, $PUID…) and its shared folders. */
interface CasaosVars {
  vars: Vars;
  meta: Obj;
  /** The web port field, once $WEBUI_PORT asked for it. */
  webPort: string | undefined;
  /** The folder field of each shared folder (/DATA/Media…) by its path. */
  mediaFields: Map<string, string>;
}

function casaosVars(meta: Obj): CasaosVars {
  const c: CasaosVars = { meta, webPort: undefined, mediaFields: new Map(), vars: new Vars((name) => platformParts(c, name)) };
  return c;
}

function platformParts(c: CasaosVars, name: string): Part[] | null {
  if (name === 'AppID') return [{ field: appIdField(c) }];
  if (name === 'PUID') return [{ field: c.vars.add(ownerIdField('puid')).id }];
  if (name === 'PGID') return [{ field: c.vars.add(ownerIdField('pgid')).id }];
  if (name === 'TZ') return [{ field: c.vars.add(tzField()).id }];
  if (name === 'WEBUI_PORT') return [{ field: webPortField(c) }];
  return null;
}

const appIdField = (c: CasaosVars) =>
  c.vars.add({ id: 'app_id', label: { en: 'App id', nl: 'App-id' }, type: 'text', required: true, secret: false, advanced: true, default: '{name}' }).id;

function webPortField(c: CasaosVars): string {
  c.webPort ??= c.vars.add({
    id: c.vars.allocate('webui_port'),
    label: { en: 'Web interface port', nl: 'Poort van de webinterface' },
    type: 'port',
    required: true,
    secret: false,
    advanced: false,
    ...(/^\d+$/.test(String(c.meta.port_map ?? '')) ? { default: Number(c.meta.port_map) } : {}),
  }).id;
  return c.webPort;
}

/** A folder the user shares between apps (/DATA/Media, /DATA/Downloads): a path field below the data folder. */
function sharedFolder(c: CasaosVars, source: string): Part[] {
  const key = source.replace(/\/+$/, '');
  let id = c.mediaFields.get(key);
  if (id === undefined) {
    const rest = key.replace(/^\/DATA\/?/, '') || 'DATA';
    id = c.vars.allocate(`${slug(rest, 'data').replace(/-/g, '_')}_dir`.replace(/^(\d)/, 'd_$1'));
    c.mediaFields.set(key, id);
    c.vars.add({
      id,
      label: { en: `Folder ${key}`, nl: `Map ${key}` },
      type: 'path',
      required: true,
      secret: false,
      advanced: false,
      default: `{data_dir}/${rest.replace(/[^A-Za-z0-9._/-]+/g, '_')}`,
      info: { en: `CasaOS mounts ${key} here.`, nl: `CasaOS koppelt hier ${key}.` },
    });
    c.vars.notes.add(`${key} became the folder field ${id}`);
  }
  return [{ field: id }];
}

/** The compose file in Kade's syntax: the app's data folder and shared folders as fields, ports labelled by the docs. */
function convert(doc: Obj, c: CasaosVars, docs: Map<string, ServiceDocs>) {
  const { vars } = c;
  const serviceCount = isObj(doc.services) ? Object.keys(doc.services).length : 0;
  return convertCompose(doc, {
    vars,
    bindSource(source, readOnly) {
      const m = APPDATA.exec(source);
      if (m) return [{ field: 'appdata_dir' }, ...vars.parts(source.slice(m[0].length))];
      if (/^\/DATA(\/|$)/.test(source) && !source.includes('$')) return sharedFolder(c, source);
      return otherHostPath(source, vars, readOnly);
    },
    dropLabel: () => false,
    dropNetwork: () => false,
    dropServiceKey: (k) => k === 'x-casaos',
    portLabel(service, container) {
      const d = docs.get(service)?.ports.get(container);
      const base = serviceCount > 1 ? `${service} ${container}` : container;
      return d ? clip(displayText(`${d} (${base})`), 500) : { en: `Port ${base}`, nl: `Poort ${base}` };
    },
  });
}

/** Env fields the service docs describe get their description as info. */
function describeEnvs(fields: TemplateFieldT[], docs: Map<string, ServiceDocs>): void {
  for (const f of fields) {
    const name = f.env ?? f.id.toUpperCase();
    for (const d of docs.values()) {
      const text = d.envs.get(name);
      if (text && !f.info) f.info = clip(displayText(text), 4000);
    }
  }
}

/** The template: x-casaos's title, texts, category, icon and version, with the fields found. */
function templateOf(c: CasaosVars, services: Record<string, Obj>, folder: string): TemplateFileT {
  const { meta } = c;
  const title = englishOf(localized(meta.title, 100)) || folder;
  const tagline = localized(meta.tagline, 500);
  const description = localized(meta.description, 4000);
  const descText =
    typeof description === 'string' ? plainText(description) : description ? { en: plainText(description.en), nl: plainText(description.nl) } : '';
  const source = typeof meta.category === 'string' ? meta.category.trim() : '';
  const mapped = CATEGORY[source.toLowerCase()];
  const tags = [source, ...(Array.isArray(meta.tags) ? meta.tags.map(String) : [])].filter((t) => t && t.length <= 40).slice(0, 30);
  const categories = categoriesOf(mapped ? [mapped] : [], tags, `${englishOf(tagline)} ${englishOf(descText)}`);
  const main = typeof meta.main === 'string' && meta.main in services ? meta.main : Object.keys(services)[0];
  const mainSvc = main ? services[main] : undefined;
  const webField = c.webPort ?? webFieldFor(c.vars.fields, meta.port_map);
  return {
    format: 1,
    name: clip(title, 100),
    description: tagline && descText ? joinText(tagline, descText) : (tagline ?? descText),
    version: typeof meta.version === 'string' && meta.version.trim() ? clip(meta.version.trim(), 50) : versionOf(String(mainSvc?.image ?? '')),
    ...(typeof meta.icon === 'string' && /^https?:\/\//.test(meta.icon) && meta.icon.length <= 2048 ? { icon: meta.icon } : {}),
    tags,
    metadata: { categories },
    ...(webField ? { web: { port_field: webField, scheme: meta.scheme === 'https' ? 'https' : 'http', path: webPath(meta.index) } } : {}),
    fields: [APPDATA_FIELD, ...c.vars.fields],
    groups: [],
  };
}

function joinText(a: string | { en: string; nl: string }, b: string | { en: string; nl: string }): string | { en: string; nl: string } {
  const en = clip(`${englishOf(a)}\n\n${englishOf(b)}`, 4000);
  const nlOf = (t: string | { en: string; nl: string }) => (typeof t === 'string' ? t : t.nl);
  return typeof a === 'string' && typeof b === 'string' ? en : { en, nl: clip(`${nlOf(a)}\n\n${nlOf(b)}`, 4000) };
}

const webPath = (index: unknown): string => (typeof index === 'string' && index.startsWith('/') && index.length <= 500 ? index : '/');

/** The port field of the web interface: the one whose default is port_map. */
function webFieldFor(fields: TemplateFieldT[], portMap: unknown): string | undefined {
  const want = Number(String(portMap ?? '').trim());
  if (!Number.isInteger(want) || want <= 0) return undefined;
  return fields.find((f) => f.type === 'port' && f.default === want)?.id;
}

export const casaosImporter: AppFolderImporter = {
  format: 'casaos',
  detect(dir) {
    for (const name of FILES) {
      if (!existsSync(join(dir, name))) continue;
      try {
        return /^x-casaos:/m.test(readRegularFile(join(dir, name)) ?? '');
      } catch {
        return false;
      }
    }
    return false;
  },
  importApp: importCasaos,
};

/**
 * Runtipi app store apps: `config.json` (name, port, categories, short_desc, form_fields) beside a
 * `docker-compose.yml`, or the dynamic `docker-compose.json` (services with isMain, internalPort, volumes as
 * hostPath/containerPath…) that Runtipi turns into compose itself. A `docker-compose.yml` with `x-runtipi` blocks
 * is read as compose with those blocks dropped. Runtipi's platform variables (APP_DATA_DIR, APP_PORT, APP_DOMAIN,
 * TZ…) map onto Kade's own values; its proxy labels and its `tipi_main_network` are dropped.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { MAX_PATTERN_LENGTH, patternProblem } from '../../../shared/field-pattern.ts';
import { isSafeName } from '../../../shared/names.ts';
import { hasPlaceholder } from '../../../shared/placeholders.ts';
import { type TemplateFieldT, TemplateFile, type TemplateFileT } from '../../../shared/template.ts';
import { readRegularFile } from '../../templates/load.ts';
import { categoriesOf } from '../derive-categories.ts';
import { APPDATA_FIELD, clip, displayText, fieldIdOf, refuse, slug, versionOf, withDefault } from './portainer-common.ts';
import { emitCompose } from './portainer-emit.ts';
import { runtipiVars } from './runtipi-platform.ts';
import { convertCompose, filesOf, isObj, otherHostPath } from './source-compose.ts';
import type { AppFolderImporter, ImportedApp } from './types.ts';

type Obj = Record<string, unknown>;

/** Runtipi's store categories onto Kade's (utilities, data and featured say nothing: derived from the words). */
const CATEGORY: Record<string, string> = {
  ai: 'ai',
  automation: 'automation',
  books: 'books',
  development: 'developer',
  finance: 'finance',
  gaming: 'gaming',
  media: 'media',
  music: 'media',
  network: 'network',
  photography: 'photos',
  security: 'security',
  social: 'communication',
};

const FQDN = '(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}';
const IPV4 = '(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)';

function readJson(dir: string, name: string): Obj {
  const raw = readRegularFile(join(dir, name));
  if (raw === null) throw refuse(`no ${name}`);
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (e) {
    throw refuse(`${name} is not valid JSON: ${(e as Error).message}`);
  }
  if (!isObj(doc)) throw refuse(`${name} is not an object`);
  return doc;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;

/** What the steps of formField read of one form entry. */
interface FormSource {
  raw: Obj;
  env: string;
  min: number | undefined;
  max: number | undefined;
  def: unknown;
  notes: Set<string>;
}

/** One entry of `form_fields` as a Kade field. */
export function formField(raw: Obj, id: string, notes: Set<string>): TemplateFieldT {
  const env = str(raw.env_variable) as string;
  const label = clip(displayText(str(raw.label) ?? env), 500);
  const f: TemplateFieldT = {
    id,
    label,
    type: 'text',
    required: raw.required === true,
    secret: false,
    advanced: false,
    ...(/^[A-Z][A-Z0-9_]{0,62}$/.test(env) ? { env } : {}),
    ...(str(raw.hint) ? { info: clip(displayText(str(raw.hint) as string), 4000) } : {}),
  };
  const literal = typed(f, { raw, env, min: num(raw.min), max: num(raw.max), def: raw.default, notes });
  const options = Array.isArray(raw.options) ? raw.options.filter(isObj) : [];
  if (options.length > 0 && f.type !== 'boolean') return asSelect(f, raw, options, literal);
  if (literal === undefined) return f;
  // A default kept out of the form (it holds text Kade would fill) stands in the compose file for an empty value.
  if (hasPlaceholder(literal)) f.required = false;
  return withDefault(f, literal);
}

/** The field as Runtipi's type says; returns a text default, which is kept literal (see withDefault). */
function typed(f: TemplateFieldT, s: FormSource): string | undefined {
  const type = str(s.raw.type) ?? 'text';
  switch (type) {
    case 'password': {
      f.type = 'password';
      f.secret = true;
      f.generate = false;
      const literal = setDefault(f, s);
      usePattern(f, s);
      lengths(f, s);
      return literal;
    }
    case 'random':
      randomField(f, s);
      return undefined;
    case 'email':
    case 'url':
      f.type = type;
      return setDefault(f, s);
    case 'number':
      f.type = 'number';
      if (s.min !== undefined) f.min = s.min;
      if (s.max !== undefined) f.max = s.max;
      if (typeof s.def === 'number' || (typeof s.def === 'string' && num(s.def) !== undefined)) f.default = num(s.def) as number;
      return undefined;
    case 'boolean':
      f.type = 'boolean';
      if (typeof s.def === 'boolean') f.default = s.def;
      else if (s.def === 'true' || s.def === 'false') f.default = s.def === 'true';
      return undefined;
    case 'fqdn':
    case 'ip':
    case 'fqdnip':
      f.pattern = type === 'fqdn' ? FQDN : type === 'ip' ? IPV4 : `${FQDN}|${IPV4}`;
      return setDefault(f, s);
    case 'text': {
      const literal = setDefault(f, s);
      usePattern(f, s);
      lengths(f, s);
      return literal;
    }
    default:
      throw refuse(`form field ${s.env} has the type '${type}', which Kade has no field for`);
  }
}

/** A value the app needs but nobody types: Kade makes one at install (Runtipi's length: `min`, else 32 characters). */
function randomField(f: TemplateFieldT, s: FormSource): void {
  f.type = 'password';
  f.secret = true;
  f.generate = true;
  f.required = false;
  // Runtipi's default encoding is hex; base64 becomes base64url (no `+`, `/` or `=` to trip a URL or .env).
  f.generate_encoding = str(s.raw.encoding) === 'base64' ? 'base64url' : 'hex';
  // Runtipi makes exactly `min` characters (32 without one): an app may need that length, not just at least it.
  if (s.min !== undefined && s.min >= 1) {
    f.min_length = Math.min(Math.floor(s.min), 4000);
    f.max_length = f.min_length;
  }
}

/** A number or yes/no default is set; a text default is returned, kept literal: Kade's own placeholders ({name}…) in it are not filled. */
function setDefault(f: TemplateFieldT, s: FormSource): string | undefined {
  if (typeof s.def === 'number' || typeof s.def === 'boolean') f.default = s.def;
  else if (typeof s.def === 'string') return s.def;
  return undefined;
}

function lengths(f: TemplateFieldT, s: FormSource): void {
  if (s.min !== undefined && s.min >= 1) f.min_length = Math.min(Math.floor(s.min), 4000);
  if (s.max !== undefined && s.max >= 1) f.max_length = Math.min(Math.floor(s.max), 4000);
}

function usePattern(f: TemplateFieldT, s: FormSource): void {
  const regex = str(s.raw.regex);
  if (!regex) return;
  // Kade matches the whole value; Runtipi's anchors (if any) say the same.
  const p = regex.replace(/^\^/, '').replace(/\$$/, '');
  if (p.length > MAX_PATTERN_LENGTH) {
    s.notes.add(`the pattern of ${s.env} could not be kept`);
    return;
  }
  // Kade matches with RE2 (linear time): a lookaround or backreference has no such match, so the app is refused.
  const problem = patternProblem(p);
  if (problem) throw refuse(`form field ${s.env} has the regex ${JSON.stringify(regex)}, which Kade cannot check: it ${problem}`);
  f.pattern = p;
}

/** A field with options is a select of them, whatever its type said (a yes/no aside). */
function asSelect(f: TemplateFieldT, raw: Obj, options: Obj[], literal: string | undefined): TemplateFieldT {
  f.type = 'select';
  f.secret = false;
  delete f.generate;
  delete f.pattern;
  delete f.min_length;
  delete f.max_length;
  f.options = options
    .slice(0, 200)
    .map((o) => ({ value: clip(String(o.value ?? ''), 200), label: clip(displayText(String(o.label ?? o.value ?? '-') || '-'), 500) }));
  if (literal !== undefined) f.default = clip(literal, 200);
  else if (raw.required === true && f.options[0]) f.default = f.options[0].value;
  return f;
}

/** The dynamic `docker-compose.json` as plain compose. */
export function dynamicToCompose(doc: Obj): { doc: Obj; main: string | undefined; internalPort: number | undefined } {
  if (!Array.isArray(doc.services) || doc.services.length === 0) throw refuse('docker-compose.json has no services');
  const services: Obj = {};
  let main: string | undefined;
  let internalPort: number | undefined;
  for (const s of doc.services as unknown[]) {
    if (!isObj(s) || typeof s.name !== 'string' || typeof s.image !== 'string') throw refuse('a service of docker-compose.json has no name or image');
    const out: Obj = { image: s.image };
    if (s.isMain === true) {
      main = s.name;
      internalPort = num(s.internalPort);
      if (internalPort !== undefined) out.ports = [`\${APP_PORT}:${internalPort}`];
    }
    const copy: [string, string][] = [
      ['command', 'command'],
      ['entrypoint', 'entrypoint'],
      ['user', 'user'],
      ['workingDir', 'working_dir'],
      ['hostname', 'hostname'],
      ['networkMode', 'network_mode'],
      ['privileged', 'privileged'],
      ['capAdd', 'cap_add'],
      ['capDrop', 'cap_drop'],
      ['devices', 'devices'],
      ['extraHosts', 'extra_hosts'],
      ['sysctls', 'sysctls'],
      ['ulimits', 'ulimits'],
      ['shmSize', 'shm_size'],
      ['stopGracePeriod', 'stop_grace_period'],
      ['stopSignal', 'stop_signal'],
      ['securityOpt', 'security_opt'],
      ['tty', 'tty'],
      ['stdinOpen', 'stdin_open'],
      ['readOnly', 'read_only'],
      ['pid', 'pid'],
      ['logging', 'logging'],
      ['deploy', 'deploy'],
      ['dns', 'dns'],
      ['labels', 'labels'],
    ];
    for (const [from, to] of copy) if (s[from] !== undefined) out[to] = s[from];
    // Runtipi's own name for a service's labels (its proxy's it adds itself).
    if (isObj(s.extraLabels)) out.labels = { ...(isObj(out.labels) ? out.labels : {}), ...s.extraLabels };
    if (Array.isArray(s.environment)) {
      out.environment = Object.fromEntries(s.environment.filter(isObj).map((e) => [String(e.key), e.value === undefined ? null : String(e.value)]));
    } else if (isObj(s.environment)) out.environment = Object.fromEntries(Object.entries(s.environment).map(([k, v]) => [k, String(v)]));
    if (Array.isArray(s.volumes)) {
      out.volumes = s.volumes.filter(isObj).map((v) => `${String(v.hostPath)}:${String(v.containerPath)}${v.readOnly === true ? ':ro' : ''}`);
    }
    if (Array.isArray(s.addPorts)) {
      const ports = (out.ports as string[] | undefined) ?? [];
      for (const p of s.addPorts.filter(isObj)) {
        const base = `${String(p.hostPort)}:${String(p.containerPort)}`;
        if (p.tcp === true) ports.push(`${base}/tcp`);
        if (p.udp === true) ports.push(`${base}/udp`);
        if (p.tcp !== true && p.udp !== true) ports.push(base);
      }
      if (ports.length) out.ports = ports;
    }
    if (s.dependsOn !== undefined) out.depends_on = s.dependsOn;
    if (isObj(s.healthCheck)) {
      const h = s.healthCheck;
      out.healthcheck = Object.fromEntries(
        [
          ['test', h.test],
          ['interval', h.interval],
          ['timeout', h.timeout],
          ['retries', h.retries],
          ['start_period', h.startPeriod],
        ].filter(([, v]) => v !== undefined),
      );
    }
    services[s.name] = out;
  }
  return { doc: { services }, main, internalPort };
}

export function importRuntipi(dir: string, folder: string): ImportedApp {
  const config = readJson(dir, 'config.json');
  if (config.available === false) throw refuse('config.json marks the app as not available');
  const { compose, main } = readCompose(dir);
  const notes = new Set<string>();
  const { declared, taken } = formFields(config, notes);
  const vars = runtipiVars(declared, notes, num(config.port));
  for (const t of taken) vars.allocate(t);

  const tree = convertCompose(compose, {
    vars,
    bindSource: (source, readOnly) => otherHostPath(source, vars, readOnly),
    dropLabel: (k) => /^(traefik\.|runtipi\.)/.test(k),
    dropNetwork: (n) => n === 'tipi_main_network',
    dropServiceKey: (k) => k === 'x-runtipi',
    portLabel: (service, container) => ({ en: `Port ${container} (${service})`, nl: `Poort ${container} (${service})` }),
  });
  for (const n of vars.notes) notes.add(n);
  // Form fields no compose text uses still belong in the form (Runtipi writes them to the app's .env).
  for (const f of declared.values()) {
    if (!vars.fields.includes(f)) {
      vars.add(f);
      notes.add(`${f.env ?? f.id} is asked in the form but not used in the compose file`);
    }
  }
  const order = [...declared.values()];
  const fields = [...order, ...vars.fields.filter((f) => !order.includes(f))];
  const template = templateOf({ dir, folder, config, compose, main, fields, notes });
  const checked = TemplateFile.safeParse(template);
  if (!checked.success) {
    const i = checked.error.issues[0];
    throw refuse(`the mapped template is not valid: ${i?.path.join('.')} ${i?.message}`);
  }
  const idSource = str(config.id) ?? folder;
  const id = isSafeName(idSource) ? idSource : slug(idSource);
  return { id, template: checked.data, compose: emitCompose(tree), notes: [...notes], ...filesOf(vars) };
}

/** The app's compose: the dynamic `docker-compose.json` turned into compose, else `docker-compose.yml` as it is. */
function readCompose(dir: string): { compose: Obj; main: string | undefined } {
  if (existsSync(join(dir, 'docker-compose.json'))) {
    const d = dynamicToCompose(readJson(dir, 'docker-compose.json'));
    return { compose: d.doc, main: d.main };
  }
  const raw = readRegularFile(join(dir, 'docker-compose.yml')) ?? readRegularFile(join(dir, 'docker-compose.yaml'));
  if (raw === null) throw refuse('no docker-compose.yml or docker-compose.json');
  let doc: unknown;
  try {
    doc = parse(raw, { maxAliasCount: 100, uniqueKeys: true });
  } catch (e) {
    throw refuse(`docker-compose.yml is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (!isObj(doc)) throw refuse('docker-compose.yml is not a mapping');
  return { compose: doc, main: undefined };
}

/** config.json's `form_fields` as Kade fields by variable name, each with an id of its own beside the platform's. */
function formFields(config: Obj, notes: Set<string>): { declared: Map<string, TemplateFieldT>; taken: Set<string> } {
  const declared = new Map<string, TemplateFieldT>();
  const taken = new Set(['appdata_dir', 'app_port', 'app_domain', 'app_host', 'app_protocol', 'app_id', 'tz', 'puid', 'pgid']);
  const form = Array.isArray(config.form_fields) ? config.form_fields : [];
  for (const raw of form) {
    if (!isObj(raw) || !str(raw.env_variable)) throw refuse('a form field has no env_variable');
    const env = str(raw.env_variable) as string;
    let id = fieldIdOf(env);
    for (let n = 2; taken.has(id); n++) id = `${fieldIdOf(env).slice(0, 58)}_${n}`;
    taken.add(id);
    declared.set(env, formField(raw, id, notes));
  }
  return { declared, taken };
}

/**
 * The app's version as the store counts it: config.json's `version` with its `tipi_version`, the number the store
 * raises with every change of the app (Runtipi's own update check compares it), so a store update of the same
 * version shows as a new template version too. Without `version`, the main image's tag.
 */
export function tipiVersion(config: Obj, image: string): string {
  const base = str(config.version) ?? versionOf(image);
  const n = config.tipi_version;
  const rev = typeof n === 'number' && Number.isInteger(n) ? ` (tipi ${n})` : '';
  return clip(base, 50 - rev.length) + rev;
}

/** The template of the app: config.json's name, texts, categories and version, with the fields found. */
function templateOf(a: {
  dir: string;
  folder: string;
  config: Obj;
  compose: Obj;
  main: string | undefined;
  fields: TemplateFieldT[];
  notes: Set<string>;
}): TemplateFileT {
  const { config, fields } = a;
  const name = str(config.name) ?? a.folder;
  const short = str(config.short_desc);
  const long = str(config.description);
  const description = clip(displayText([short, long].filter(Boolean).join('\n\n')), 4000);
  const sourceCats = Array.isArray(config.categories) ? config.categories.map(String) : [];
  const mapped = sourceCats.map((c) => CATEGORY[c.toLowerCase()]).filter((c): c is string => !!c);
  const tags = sourceCats.filter((t) => t && t.length <= 40 && t !== 'featured').slice(0, 30);
  const categories = categoriesOf(mapped, tags, `${short ?? ''} ${long ?? ''}`);
  const services = isObj(a.compose.services) ? (a.compose.services as Record<string, Obj>) : {};
  const mainName = a.main ?? Object.keys(services)[0];
  const hasLogo = existsSync(join(a.dir, 'metadata', 'logo.jpg')) || existsSync(join(a.dir, 'logo.jpg'));
  if (hasLogo) a.notes.add('logo.jpg is not shown (Kade shows icons by URL)');
  return {
    format: 1,
    name: clip(name, 100),
    description,
    version: tipiVersion(config, String(services[mainName ?? '']?.image ?? '')),
    tags,
    metadata: { categories },
    ...(fields.some((f) => f.id === 'app_port') ? { web: { port_field: 'app_port', scheme: 'http', path: urlPath(config.url_suffix) } } : {}),
    fields: [APPDATA_FIELD, ...fields],
    groups: [],
  };
}

const urlPath = (v: unknown): string => (typeof v === 'string' && v.startsWith('/') && v.length <= 500 ? v : '/');

export const runtipiImporter: AppFolderImporter = {
  format: 'runtipi',
  detect: (dir) =>
    existsSync(join(dir, 'config.json')) &&
    (existsSync(join(dir, 'docker-compose.yml')) || existsSync(join(dir, 'docker-compose.json')) || existsSync(join(dir, 'docker-compose.yaml'))),
  importApp: importRuntipi,
};

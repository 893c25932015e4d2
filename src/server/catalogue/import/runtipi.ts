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
import { emitCompose, type Part } from './portainer-emit.ts';
import { convertCompose, isObj, otherHostPath, Vars } from './source-compose.ts';
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

/** One entry of `form_fields` as a Kade field. */
export function formField(raw: Obj, id: string, notes: Set<string>): TemplateFieldT {
  const env = str(raw.env_variable) as string;
  const label = clip(displayText(str(raw.label) ?? env), 500);
  const type = str(raw.type) ?? 'text';
  const min = num(raw.min);
  const max = num(raw.max);
  const def = raw.default;
  let literal: string | undefined;
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
  const setDefault = () => {
    if (typeof def === 'number' || typeof def === 'boolean') f.default = def;
    // A text default is kept literal: Kade's own placeholders ({name}…) in it are not filled (see withDefault).
    else if (typeof def === 'string') literal = def;
  };
  const lengths = () => {
    if (min !== undefined && min >= 1) f.min_length = Math.min(Math.floor(min), 4000);
    if (max !== undefined && max >= 1) f.max_length = Math.min(Math.floor(max), 4000);
  };
  const regex = str(raw.regex);
  const usePattern = () => {
    if (!regex) return;
    // Kade matches the whole value; Runtipi's anchors (if any) say the same.
    const p = regex.replace(/^\^/, '').replace(/\$$/, '');
    if (p.length > MAX_PATTERN_LENGTH) {
      notes.add(`the pattern of ${env} could not be kept`);
      return;
    }
    // Kade matches with RE2 (linear time): a lookaround or backreference has no such match, so the app is refused.
    const problem = patternProblem(p);
    if (problem) throw refuse(`form field ${env} has the regex ${JSON.stringify(regex)}, which Kade cannot check: it ${problem}`);
    f.pattern = p;
  };
  switch (type) {
    case 'password':
      f.type = 'password';
      f.secret = true;
      f.generate = false;
      setDefault();
      usePattern();
      lengths();
      break;
    case 'random': {
      // A value the app needs but nobody types: Kade makes one at install (32 characters).
      f.type = 'password';
      f.secret = true;
      f.generate = true;
      f.required = false;
      // Runtipi's default encoding is hex; base64 becomes base64url (no `+`, `/` or `=` to trip a URL or .env).
      f.generate_encoding = str(raw.encoding) === 'base64' ? 'base64url' : 'hex';
      if (min !== undefined && min >= 1) f.min_length = Math.min(Math.floor(min), 4000);
      break;
    }
    case 'email':
      f.type = 'email';
      setDefault();
      break;
    case 'url':
      f.type = 'url';
      setDefault();
      break;
    case 'number':
      f.type = 'number';
      if (min !== undefined) f.min = min;
      if (max !== undefined) f.max = max;
      if (typeof def === 'number' || (typeof def === 'string' && num(def) !== undefined)) f.default = num(def) as number;
      break;
    case 'boolean':
      f.type = 'boolean';
      if (typeof def === 'boolean') f.default = def;
      else if (def === 'true' || def === 'false') f.default = def === 'true';
      break;
    case 'fqdn':
      f.pattern = FQDN;
      setDefault();
      break;
    case 'ip':
      f.pattern = IPV4;
      setDefault();
      break;
    case 'fqdnip':
      f.pattern = `${FQDN}|${IPV4}`;
      setDefault();
      break;
    case 'text':
      setDefault();
      usePattern();
      lengths();
      break;
    default:
      throw refuse(`form field ${env} has the type '${type}', which Kade has no field for`);
  }
  const options = Array.isArray(raw.options) ? raw.options.filter(isObj) : [];
  if (options.length > 0 && f.type !== 'boolean') {
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
  if (literal === undefined) return f;
  // A default kept out of the form (it holds text Kade would fill) stands in the compose file for an empty value.
  if (hasPlaceholder(literal)) f.required = false;
  return withDefault(f, literal);
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
  let compose: Obj;
  let main: string | undefined;
  if (existsSync(join(dir, 'docker-compose.json'))) {
    const d = dynamicToCompose(readJson(dir, 'docker-compose.json'));
    compose = d.doc;
    main = d.main;
  } else {
    const raw = readRegularFile(join(dir, 'docker-compose.yml')) ?? readRegularFile(join(dir, 'docker-compose.yaml'));
    if (raw === null) throw refuse('no docker-compose.yml or docker-compose.json');
    let doc: unknown;
    try {
      doc = parse(raw, { maxAliasCount: 100, uniqueKeys: true });
    } catch (e) {
      throw refuse(`docker-compose.yml is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
    }
    if (!isObj(doc)) throw refuse('docker-compose.yml is not a mapping');
    compose = doc;
  }

  const notes = new Set<string>();
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

  const port = num(config.port);
  const webPortField = (): TemplateFieldT => ({
    id: 'app_port',
    label: { en: 'Web interface port', nl: 'Poort van de webinterface' },
    type: 'port',
    required: true,
    secret: false,
    advanced: false,
    ...(port !== undefined ? { default: port } : {}),
  });
  const text = (id: string, en: string, nl: string, def: string): TemplateFieldT => ({
    id,
    label: { en, nl },
    type: 'text',
    required: true,
    secret: false,
    advanced: true,
    default: def,
  });
  const platform = (name: string): Part[] | null => {
    switch (name) {
      case 'APP_DATA_DIR':
        return [{ field: 'appdata_dir' }];
      case 'ROOT_FOLDER_HOST':
        notes.add("ROOT_FOLDER_HOST (Runtipi's own folder) is the app's data folder");
        return [{ field: 'appdata_dir' }];
      case 'APP_PORT':
        return [{ field: vars.add(webPortField()).id }];
      case 'APP_DOMAIN':
      case 'LOCAL_DOMAIN':
        return [{ field: vars.add(text('app_domain', 'Domain name', 'Domeinnaam', 'localhost')).id }];
      case 'APP_HOST':
      case 'INTERNAL_IP':
      case 'DNS_IP':
        return [{ field: vars.add(text('app_host', 'Host address', 'Hostadres', '127.0.0.1')).id }];
      case 'APP_PROTOCOL':
        return [
          {
            field: vars.add({
              id: 'app_protocol',
              label: { en: 'Protocol', nl: 'Protocol' },
              type: 'select',
              required: true,
              secret: false,
              advanced: true,
              default: 'http',
              options: [
                { value: 'http', label: 'http' },
                { value: 'https', label: 'https' },
              ],
            }).id,
          },
        ];
      case 'APP_ID':
        return [{ field: vars.add(text('app_id', 'App id', 'App-id', '{name}')).id }];
      case 'APP_EXPOSED':
        return [{ lit: 'false' }];
      case 'NETWORK_INTERFACE':
        return [{ lit: '0.0.0.0' }];
      case 'TZ':
        return [{ field: vars.add(text('tz', 'Time zone', 'Tijdzone', 'UTC')).id }];
      case 'PUID':
      case 'PGID': {
        const id = name.toLowerCase();
        return [
          {
            field: vars.add({
              id,
              label: id === 'puid' ? { en: 'User id', nl: 'Gebruikers-id' } : { en: 'Group id', nl: 'Groeps-id' },
              type: 'number',
              required: true,
              secret: false,
              advanced: true,
            }).id,
          },
        ];
      }
      default:
        return null;
    }
  };
  const vars: Vars = new Vars(platform, declared);
  for (const t of taken) vars.allocate(t);

  const tree = convertCompose(compose, {
    vars,
    bindSource: (source) => otherHostPath(source, vars),
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

  const name = str(config.name) ?? folder;
  const short = str(config.short_desc);
  const long = str(config.description);
  const description = clip(displayText([short, long].filter(Boolean).join('\n\n')), 4000);
  const sourceCats = Array.isArray(config.categories) ? config.categories.map(String) : [];
  const mapped = sourceCats.map((c) => CATEGORY[c.toLowerCase()]).filter((c): c is string => !!c);
  const tags = sourceCats.filter((t) => t && t.length <= 40 && t !== 'featured').slice(0, 30);
  const categories = categoriesOf(mapped, tags, `${short ?? ''} ${long ?? ''}`);
  const services = isObj(compose.services) ? (compose.services as Record<string, Obj>) : {};
  const mainName = main ?? Object.keys(services)[0];
  const hasLogo = existsSync(join(dir, 'metadata', 'logo.jpg')) || existsSync(join(dir, 'logo.jpg'));
  if (hasLogo) notes.add('logo.jpg is not shown (Kade shows icons by URL)');
  const template: TemplateFileT = {
    format: 1,
    name: clip(name, 100),
    description,
    version: str(config.version) ? clip(str(config.version) as string, 50) : versionOf(String(services[mainName ?? '']?.image ?? '')),
    tags,
    metadata: { categories },
    ...(fields.some((f) => f.id === 'app_port') ? { web: { port_field: 'app_port', scheme: 'http', path: urlPath(config.url_suffix) } } : {}),
    fields: [APPDATA_FIELD, ...fields],
    groups: [],
  };
  const checked = TemplateFile.safeParse(template);
  if (!checked.success) {
    const i = checked.error.issues[0];
    throw refuse(`the mapped template is not valid: ${i?.path.join('.')} ${i?.message}`);
  }
  const idSource = str(config.id) ?? folder;
  const id = isSafeName(idSource) ? idSource : slug(idSource);
  return { id, template: checked.data, compose: emitCompose(tree), notes: [...notes] };
}

const urlPath = (v: unknown): string => (typeof v === 'string' && v.startsWith('/') && v.length <= 500 ? v : '/');

export const runtipiImporter: AppFolderImporter = {
  format: 'runtipi',
  detect: (dir) =>
    existsSync(join(dir, 'config.json')) &&
    (existsSync(join(dir, 'docker-compose.yml')) || existsSync(join(dir, 'docker-compose.json')) || existsSync(join(dir, 'docker-compose.yaml'))),
  importApp: importRuntipi,
};

import { randomBytes } from 'node:crypto';
import Mustache from 'mustache';
import { isMap, parseDocument, visit } from 'yaml';
import { parseConnectValue } from '../../shared/field-rules.ts';
import type { FieldValue, TemplateFieldT, TemplateFileT } from '../../shared/template.ts';
import { AppError } from '../core/errors.ts';
import { composeText } from './compose-text.ts';
import { stringifyCompose } from './yaml-out.ts';

export const MAX_TEMPLATE_BYTES = 256 * 1024;
export const MAX_SECTION_DEPTH = 8;

export interface RenderInput {
  template: TemplateFileT;
  compose: string;
  values: Record<string, FieldValue>;
  timezone: string;
}

export interface RenderOutput {
  compose: string;
  env: Record<string, string>;
  secretEnv: Record<string, string>;
}

type Token = [string, string, number, number, Token[]?, number?];

export const allFields = (t: TemplateFileT): TemplateFieldT[] => [...t.fields, ...t.groups.flatMap((g) => g.fields)];
export const envNameOf = (f: TemplateFieldT): string => f.env ?? f.id.toUpperCase();

const invalid = (msg: string, params: Record<string, string | number> = {}) => new AppError('template_invalid', msg, { params });

/** Mustache's own parser; partials, lambdas and unknown names are refused, so no template can run code. */
function parseTemplate(text: string, known: Set<string>): Token[] {
  if (Buffer.byteLength(text) > MAX_TEMPLATE_BYTES) throw invalid(`compose template is larger than ${MAX_TEMPLATE_BYTES} bytes`);
  let tokens: Token[];
  try {
    tokens = Mustache.parse(text) as Token[];
  } catch (e) {
    throw invalid(`compose template does not parse: ${(e as Error).message}`);
  }
  const check = (list: Token[], depth: number) => {
    if (depth > MAX_SECTION_DEPTH) throw invalid(`sections are nested deeper than ${MAX_SECTION_DEPTH}`);
    for (const t of list) {
      const [type, name] = t;
      if (type === '>') throw invalid(`partials ({{> ${name}}}) are not allowed`, { name });
      if (type === 'name' || type === '&' || type === '#' || type === '^') {
        if (!known.has(name)) throw invalid(`the template uses '${name}', which is not a declared field`, { name });
      }
      if (t[4]) check(t[4], depth + 1);
    }
  };
  check(tokens, 0);
  return tokens;
}

const truthy = (v: FieldValue | undefined) => v !== undefined && v !== false && v !== '' && v !== 0;

/** Renders sections with real values but writes a placeholder for every variable; values go in after YAML parsing. */
function renderTokens(tokens: Token[], values: Record<string, FieldValue>, placeholder: (name: string) => string): string {
  let out = '';
  for (const t of tokens) {
    const [type, value] = t;
    if (type === 'text') out += value;
    else if (type === 'name' || type === '&') out += placeholder(value);
    else if (type === '#' && truthy(values[value])) out += renderTokens(t[4] ?? [], values, placeholder);
    else if (type === '^' && !truthy(values[value])) out += renderTokens(t[4] ?? [], values, placeholder);
  }
  return out;
}

/** Keys a dropped block may leave empty; only these are cleaned, so a bare named volume survives. */
const SERVICE_KEYS = new Set([
  'environment',
  'ports',
  'volumes',
  'labels',
  'depends_on',
  'devices',
  'networks',
  'command',
  'entrypoint',
  'extra_hosts',
  'cap_add',
  'cap_drop',
  'healthcheck',
  'env_file',
  'dns',
  'expose',
  'secrets',
  'configs',
  'sysctls',
  'ulimits',
  'tmpfs',
  'logging',
  'deploy',
]);
const TOP_KEYS = new Set(['services', 'volumes', 'networks', 'secrets', 'configs']);

const isEmpty = (v: unknown) =>
  v === null ||
  v === undefined ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

function cleanEmpty(doc: Record<string, unknown>): void {
  const services = doc.services;
  if (services && typeof services === 'object') {
    for (const svc of Object.values(services as Record<string, unknown>)) {
      if (!svc || typeof svc !== 'object') continue;
      const s = svc as Record<string, unknown>;
      for (const key of Object.keys(s)) if (SERVICE_KEYS.has(key) && isEmpty(s[key])) delete s[key];
    }
  }
  for (const key of Object.keys(doc)) if (TOP_KEYS.has(key) && isEmpty(doc[key])) delete doc[key];
}

function addTimezone(doc: Record<string, unknown>, tz: string): void {
  const services = doc.services as Record<string, Record<string, unknown>> | undefined;
  for (const svc of Object.values(services ?? {})) {
    if (!svc || typeof svc !== 'object') continue;
    const env = svc.environment;
    if (Array.isArray(env)) {
      if (!env.some((e) => String(e).startsWith('TZ='))) env.push(`TZ=${tz}`);
    } else if (env && typeof env === 'object') {
      const m = env as Record<string, unknown>;
      if (!('TZ' in m)) m.TZ = tz;
    } else svc.environment = { TZ: tz };
  }
}

/** The names a connect field `<id>` adds to the compose content: `<id>_host` and `<id>_port`. */
export const connectPartIds = (id: string): [string, string] => [`${id}_host`, `${id}_port`];

/**
 * The host and the port of every connect value (docs/templates.md, "Connect fields"), for apps that
 * take them apart (`PAPERLESS_DBHOST`). A declared field of the same id keeps its own value.
 */
function connectParts(declared: TemplateFieldT[], input: Record<string, FieldValue>) {
  const ids = new Set(declared.map((f) => f.id));
  const fields: TemplateFieldT[] = [];
  const values: Record<string, FieldValue> = {};
  for (const f of declared) {
    if (!f.connect) continue;
    const [hostId, portId] = connectPartIds(f.id);
    const raw = Object.hasOwn(input, f.id) ? String(input[f.id]) : '';
    const parsed = parseConnectValue(raw, f.connect.scheme);
    if (!ids.has(hostId)) {
      fields.push({ ...f, id: hostId, type: 'text', secret: false, connect: undefined, env: undefined });
      values[hostId] = parsed?.host ?? '';
    }
    if (!ids.has(portId)) {
      fields.push({ ...f, id: portId, type: 'port', secret: false, connect: undefined, env: undefined });
      values[portId] = parsed?.port ?? '';
    }
  }
  return { fields, values };
}

/**
 * Renders a template into a compose file and its .env. No value can add a key: variables
 * become placeholders, the YAML is parsed, and the values are put into the parsed scalars.
 * Secret values become `${NAME}` references stored in .env; `$` in other values is escaped.
 */
export function renderTemplate(input: RenderInput): RenderOutput {
  const declared = allFields(input.template);
  const parts = connectParts(declared, input.values);
  const fields = [...declared, ...parts.fields];
  const byId = new Map(fields.map((f) => [f.id, f]));
  const toggles = input.template.groups.filter((g) => g.toggle).map((g) => `${g.id}_enabled`);
  const tokens = parseTemplate(input.compose, new Set([...byId.keys(), ...toggles]));
  const nonce = randomBytes(6).toString('hex');
  const placeholder = (name: string) => `__kade_${nonce}_${name}__`;
  // Only declared names, in a null-prototype object: nothing inherited is reachable from a template.
  const values: Record<string, FieldValue> = Object.create(null) as Record<string, FieldValue>;
  for (const f of declared) if (Object.hasOwn(input.values, f.id)) values[f.id] = input.values[f.id] as FieldValue;
  for (const [id, v] of Object.entries(parts.values)) values[id] = v;
  for (const id of toggles) if (Object.hasOwn(input.values, id)) values[id] = input.values[id] as FieldValue;
  const text = renderTokens(tokens, values, placeholder);

  const parsed = parseDocument(text, { uniqueKeys: true });
  if (parsed.errors.length > 0) throw invalid(`rendered compose is not valid YAML: ${parsed.errors[0]?.message ?? ''}`);
  const secretEnv: Record<string, string> = {};
  const env: Record<string, string> = {};
  const pattern = new RegExp(`__kade_${nonce}_([a-z][a-z0-9_]*)__`, 'g');

  const substitute = (s: string): string | number | boolean => {
    const whole = new RegExp(`^__kade_${nonce}_([a-z][a-z0-9_]*)__$`).exec(s);
    const wholeField = whole?.[1] ? byId.get(whole[1]) : undefined;
    if (wholeField && !wholeField.secret) {
      const v = values[wholeField.id] ?? '';
      if (typeof v !== 'string') return v;
    }
    return s.replace(pattern, (_m, id: string) => {
      const f = byId.get(id);
      const v = values[id];
      const str = v === undefined ? '' : String(v);
      if (f?.secret) {
        const name = envNameOf(f);
        secretEnv[id] = name;
        env[name] = str;
        return `\${${name}}`;
      }
      return str.replace(/\$/g, '$$$$');
    });
  };

  visit(parsed, {
    Scalar(_key, node) {
      if (typeof node.value === 'string' && node.value.includes(`__kade_${nonce}_`)) {
        node.value = substitute(node.value);
        node.type = 'PLAIN';
      }
    },
  });

  if (!isMap(parsed.contents)) throw invalid('rendered compose is not a mapping');
  let doc: unknown;
  try {
    doc = parsed.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw invalid(`rendered compose cannot be read: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw invalid('rendered compose is not a mapping');
  const root = doc as Record<string, unknown>;
  const services = root.services;
  if (!services || typeof services !== 'object' || Array.isArray(services) || Object.keys(services).length === 0) {
    throw invalid('rendered compose has no services');
  }
  cleanEmpty(root);
  composeText(root);
  if (!declared.some((f) => f.id === 'tz' || f.id === 'timezone')) addTimezone(root, input.timezone);
  return { compose: stringifyCompose(root), env, secretEnv };
}

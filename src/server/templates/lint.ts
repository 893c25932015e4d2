import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CATEGORY_IDS } from '../../shared/categories.ts';
import { isSafeName } from '../../shared/names.ts';
import { normalisePath } from '../../shared/paths.ts';
import type { FieldValue, TemplateFieldT, TemplateFileT } from '../../shared/template.ts';
import { errorMessage } from '../core/errors.ts';
import { hostSources } from './compose-sources.ts';
import { loadTemplate } from './load.ts';
import { allFields, connectPartIds, envNameOf, renderTemplate } from './render.ts';
import { toggleId } from './values.ts';

export interface LintFinding {
  app: string;
  level: 'error' | 'warning';
  rule: string;
  message: string;
}

const mark = (id: string) => `lintmark${id.replace(/_/g, 'x')}end`;
const NOT_GENERATABLE = /(api_?key|token|private_?key|client_?(id|secret)|licen[cs]e|cert|fingerprint)/;
const TEXTUAL = new Set(['text', 'password']);

interface Usage {
  hostPorts: string[];
  containerPorts: Set<number>;
  paths: string[];
}

/** Where the rendered compose file uses which values: published host ports, container ports, host paths. */
function usage(doc: { services?: Record<string, Record<string, unknown>> }): Usage {
  const u: Usage = { hostPorts: [], containerPorts: new Set(), paths: [] };
  for (const svc of Object.values(doc.services ?? {})) {
    for (const p of (svc.ports as unknown[]) ?? []) {
      const spec =
        typeof p === 'object' && p !== null ? `${(p as { published?: unknown }).published ?? ''}:${(p as { target?: unknown }).target ?? ''}` : String(p);
      const parts = spec.replace(/\/(tcp|udp)$/, '').split(':');
      const container = parts.at(-1) ?? '';
      if (parts.length >= 2) u.hostPorts.push(parts.at(-2) ?? '');
      if (/^\d+$/.test(container)) u.containerPorts.add(Number(container));
    }
    for (const e of (svc.expose as unknown[]) ?? []) if (/^\d+$/.test(String(e))) u.containerPorts.add(Number(e));
    for (const v of (svc.volumes as unknown[]) ?? [])
      u.paths.push(typeof v === 'string' ? (v.split(':')[0] ?? '') : String((v as { source?: unknown }).source ?? ''));
  }
  return u;
}

function fieldRules(app: string, t: TemplateFileT, u: Usage, add: (f: Omit<LintFinding, 'app'>) => void): void {
  const fields = allFields(t);
  const used = (f: TemplateFieldT, list: string[]) => list.some((s) => s.includes(mark(f.id)) || (f.secret && s.includes(`\${${envNameOf(f)}}`)));
  for (const f of fields) {
    if (f.type === 'port' && !u.hostPorts.some((h) => h.includes(mark(f.id)))) {
      add({ level: 'error', rule: 'real-port-field', message: `${f.id} is a port field but is not the host side of any published port` });
    }
    if (f.type !== 'port' && u.hostPorts.some((h) => h === mark(f.id) || h.endsWith(`:${mark(f.id)}`))) {
      add({ level: 'warning', rule: 'real-port-field', message: `${f.id} publishes a port; give it type "port" so the form checks it` });
    }
    if (f.secret && (used(f, u.hostPorts) || used(f, u.paths))) {
      add({ level: 'error', rule: 'secret-placement', message: `${f.id} is secret but used in a port or path, which must stay readable` });
    }
    if (f.generate && (!TEXTUAL.has(f.type) || f.connect || NOT_GENERATABLE.test(f.id))) {
      add({
        level: 'error',
        rule: 'generate',
        message: `${f.id} has generate, but a made-up value is wrong here (${f.connect ? 'it connects to another app' : !TEXTUAL.has(f.type) ? `type ${f.type}` : 'a key or token issued elsewhere'})`,
      });
    }
    const url = typeof f.default === 'string' ? /^[a-z][a-z0-9+.-]*:\/\/[^/:]+:(\d+)/i.exec(f.default) : null;
    if (url?.[1] && !u.containerPorts.has(Number(url[1])) && !fields.some((p) => p.type === 'port' && Number(p.default) === Number(url[1]))) {
      add({ level: 'error', rule: 'url-default-port', message: `${f.id} defaults to port ${url[1]}, which the app does not use` });
    }
  }
  const visible = t.fields.filter((f) => !f.advanced).length + t.groups.filter((g) => !g.advanced).flatMap((g) => g.fields.filter((f) => !f.advanced)).length;
  if (visible === 0) add({ level: 'error', rule: 'visible-field', message: 'every field is advanced; an app keeps at least one visible field' });
  const unknown = t.metadata.categories.filter((c) => !CATEGORY_IDS.has(c));
  if (unknown.length) add({ level: 'error', rule: 'category', message: `unknown categories: ${unknown.join(', ')}` });
  if (t.web?.port_field && !fields.some((f) => f.id === t.web?.port_field && f.type === 'port')) {
    add({ level: 'error', rule: 'web-port', message: `web.port_field '${t.web.port_field}' is not a port field` });
  }
  const ids = fields.map((f) => f.id);
  const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (dup.length) add({ level: 'error', rule: 'unique-ids', message: `field ids used twice: ${[...new Set(dup)].join(', ')}` });
  if (!app.match(/^[a-z0-9]/)) add({ level: 'error', rule: 'name', message: 'folder name is not a safe app id' });
}

/** What /api/devices offers (serial ports, video devices, GPU render nodes), by kernel name or stable by-id link. */
const OFFERED_DEVICE = /^\/dev\/(tty(USB|ACM)\d+|video\d+|dri(\/[^/]+)?|serial\/by-id\/[^/]+|v4l\/by-id\/[^/]+)$/;

/**
 * The host's own places: a bind of one is a power over the host, meant as such (the engine socket and the folders that
 * hold it, /run and /var/run; `/` read-only).
 */
const HOST_PLACES = ['/etc', '/proc', '/sys', '/boot', '/dev', '/run', '/var/run'];
const TIME_FILES = new Set(['/etc/localtime', '/etc/timezone']);

/** A power over the host, said as a warning: only an admin installs such an app, confirming each power in the review. */
function hostPower(s: { where: string; path: string; kind: string; readOnly?: boolean | undefined }): Omit<LintFinding, 'app'> | 'fine' | null {
  const p = normalisePath(s.path);
  if (s.kind === 'bind' && s.readOnly && TIME_FILES.has(p)) return 'fine';
  const place = s.kind === 'device' || p === '/' || HOST_PLACES.some((h) => p === h || p.startsWith(`${h}/`));
  if (!place) return null;
  // `/` holds Kade's own files: no install lets a container change them (bind-structure.ts), whoever confirms.
  if (s.kind === 'bind' && p === '/' && !s.readOnly) {
    return {
      level: 'error',
      rule: 'bind-source',
      message: `${s.where} binds '/' writable: it holds Kade's own files, so no install can allow it; bind it read-only (:ro)`,
    };
  }
  const what = s.kind === 'device' ? `gives the device '${s.path}'` : `binds '${s.path}'`;
  return { level: 'warning', rule: 'host-power', message: `${s.where} ${what}: a power over the host, so only an admin can install the app` };
}

/**
 * Host paths a template may bind (bind-policy.ts decides at install): below a `path` field such as {{appdata_dir}}
 * (the install judges the value; empty means DATA_DIR/<name>), its own folder (`./x`) or a named volume. The host's
 * time zone files bound read-only are fine; the host's own places (the engine socket, `/`, /etc, devices other than
 * serial and video) are powers an admin allows at install (a warning); any other literal host path is an error.
 */
function bindRules(t: TemplateFileT, compose: string, env: Record<string, string>, add: (f: Omit<LintFinding, 'app'>) => void): void {
  const marks = allFields(t)
    .filter((f) => f.type === 'path')
    .map((f) => mark(f.id));
  for (const s of hostSources(compose, env)) {
    // A volume named on its own is judged at install (another app's name is refused there).
    if (s.kind === 'volume' || marks.some((m) => s.path.startsWith(m))) continue;
    if (s.kind === 'device' && OFFERED_DEVICE.test(normalisePath(s.path))) continue;
    // A file compose reads (env_file, a secret) is no power: it stays an error below.
    const power = s.kind === 'device' || (s.mount && s.path.startsWith('/')) ? hostPower(s) : null;
    if (power) {
      if (power !== 'fine') add(power);
      continue;
    }
    if (s.kind === 'device') {
      add({ level: 'error', rule: 'bind-source', message: `${s.where} gives the device '${s.path}'; use a path field or a serial or video device` });
      continue;
    }
    const p = normalisePath(s.path);
    if (s.path.startsWith('.') && p !== '..' && !p.startsWith('../')) continue;
    add({
      level: 'error',
      rule: 'bind-source',
      message: `${s.where} binds '${s.path}'; bind below a path field such as {{appdata_dir}}, the app's own folder (./x) or a named volume`,
    });
  }
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A connect value is a whole address (`scheme://host:port`): a template that puts a scheme before it
 * or a port after it builds `http://http://ollama:11434:11434`. Its parts are `<id>_host`, `<id>_port`.
 */
function connectRules(t: TemplateFileT, compose: string, add: (f: Omit<LintFinding, 'app'>) => void): void {
  const ids = new Set(allFields(t).map((f) => f.id));
  for (const f of allFields(t)) {
    if (!f.connect) continue;
    const use = `\\{\\{\\{?\\s*&?\\s*${escapeRe(f.id)}\\s*\\}\\}\\}?`;
    if (new RegExp(`[a-z0-9+.-]*://\\S*${use}`, 'i').test(compose) || new RegExp(`${use}:[0-9{]`).test(compose)) {
      add({
        level: 'error',
        rule: 'connect-value',
        message: `${f.id} is a connect field: its value is already ${f.connect.scheme}://host:port; use {{${f.id}}} as it is, or {{${f.id}_host}} and {{${f.id}_port}}`,
      });
    }
    for (const part of connectPartIds(f.id)) {
      if (ids.has(part))
        add({
          level: 'error',
          rule: 'connect-value',
          message: `${part} is a declared field, but it is also the ${part.endsWith('_host') ? 'host' : 'port'} of connect field ${f.id}`,
        });
    }
  }
}

/** Checks one app folder against every rule of the template format; never throws. */
export function lintApp(dir: string, app: string, knownApps: ReadonlySet<string> = new Set()): LintFinding[] {
  const findings: LintFinding[] = [];
  const add = (f: Omit<LintFinding, 'app'>) => findings.push({ app, ...f });
  try {
    const { template, compose } = loadTemplate(dir, app);
    const values: Record<string, FieldValue> = {};
    for (const f of allFields(template)) values[f.id] = mark(f.id);
    for (const g of template.groups) if (g.toggle) values[toggleId(g.id)] = true;
    const out = renderTemplate({ template, compose, values, timezone: 'UTC' });
    fieldRules(app, template, usage(parse(out.compose)), add);
    bindRules(template, out.compose, out.env, add);
    connectRules(template, compose, add);
    for (const f of allFields(template)) {
      if (f.connect && knownApps.size > 0 && !knownApps.has(f.connect.app)) {
        add({ level: 'warning', rule: 'connect', message: `${f.id} connects to '${f.connect.app}', which this repo does not have` });
      }
    }
  } catch (err) {
    add({ level: 'error', rule: 'load', message: errorMessage(err) });
  }
  return findings;
}

/** Lints every app folder under `appsDir`. */
export function lintRepo(appsDir: string): { apps: number; findings: LintFinding[] } {
  const apps = readdirSync(appsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name);
  const known = new Set(apps);
  const findings = apps.flatMap((app) =>
    isSafeName(app) ? lintApp(join(appsDir, app), app, known) : [{ app, level: 'error' as const, rule: 'name', message: 'folder name is not a safe app id' }],
  );
  return { apps: apps.length, findings };
}

/**
 * Pieces the Portainer and Cosmos importers share: ids, secret-looking names, host paths onto the app's data
 * folder, published ports as port fields, the template's texts.
 */

import { ZodError } from 'zod';
import { normalisePath } from '../../../shared/paths.ts';
import { hasPlaceholder } from '../../../shared/placeholders.ts';
import { type TemplateFieldT, TemplateFile, type TemplateFileT } from '../../../shared/template.ts';
import { AppError, errorMessage } from '../../core/errors.ts';
import { type Item, lit, map, type Part, text } from './portainer-emit.ts';

export const refuse = (reason: string): AppError => new AppError('template_invalid', reason);

/** The mapped template as Kade reads it; one that does not pass is refused naming its first issue. */
export function parseMapped(raw: unknown): TemplateFileT {
  try {
    return TemplateFile.parse(raw);
  } catch (e) {
    const issue = e instanceof ZodError ? e.issues[0] : undefined;
    throw refuse(issue ? `cannot be mapped: ${issue.path.join('.')} ${issue.message}` : errorMessage(e));
  }
}

/** A valid Kade app name from a title: `Nginx Proxy Manager` → `nginx-proxy-manager`. */
export const slug = (title: string, fallback = 'app'): string => {
  const s = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '');
  return s || fallback;
};

/** Hands out ids once: a second `x` becomes `x-2` (apps) or `x_2` (fields). */
export function idAllocator(sep: '-' | '_', taken: Iterable<string> = []) {
  const used = new Set(taken);
  return (base: string): string => {
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base.slice(0, 60)}${sep}${n}`;
    used.add(id);
    return id;
  };
}

/** A field id from a variable name: `MYSQL_ROOT_PASSWORD` → `mysql_root_password`. */
export const fieldIdOf = (name: string): string => {
  const s = name
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  return /^[a-z]/.test(s) ? s : `v_${s}`.slice(0, 62);
};

const SECRET_NAME = /pass(word|wd)|(^|_)pass($|_)|secret|token|(^|_)key($|_)|api_?key|private/i;
const ISSUED_ELSEWHERE = /(api_?key|token|private_?key|client_?(id|secret)|licen[cs]e|cert|fingerprint)/i;

/** Whether a variable name says it holds a secret (PASSWORD, SECRET, TOKEN, KEY). */
export const looksSecret = (name: string): boolean => SECRET_NAME.test(name);

/** A secret field; a made-up value only where one is right (not for keys and tokens issued elsewhere). */
export function secretField(id: string, label: string, extra: Partial<TemplateFieldT> = {}): TemplateFieldT {
  return {
    id,
    label: displayText(label),
    type: 'password',
    required: false,
    secret: true,
    advanced: false,
    ...(ISSUED_ELSEWHERE.test(id) ? {} : { generate: true }),
    ...extra,
  };
}

export const textField = (id: string, label: string, extra: Partial<TemplateFieldT> = {}): TemplateFieldT => ({
  id,
  label: displayText(label),
  type: 'text',
  required: false,
  secret: false,
  advanced: false,
  ...extra,
});

/** The user or group id a platform passes on (PUID, PGID): an advanced number field. */
export const ownerIdField = (id: 'puid' | 'pgid'): TemplateFieldT => ({
  id,
  label: id === 'puid' ? { en: 'User id', nl: 'Gebruikers-id' } : { en: 'Group id', nl: 'Groeps-id' },
  type: 'number',
  required: true,
  secret: false,
  advanced: true,
});

/** The time zone a platform passes on (TZ), UTC unless changed. */
export const tzField = (): TemplateFieldT => ({
  id: 'tz',
  label: { en: 'Time zone', nl: 'Tijdzone' },
  type: 'text',
  required: true,
  secret: false,
  advanced: true,
  default: 'UTC',
});

export const APPDATA_FIELD: TemplateFieldT = {
  id: 'appdata_dir',
  label: { en: 'Data folder', nl: 'Gegevensmap' },
  type: 'path',
  required: true,
  secret: false,
  advanced: false,
};

const ENGINE_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock'];
/** The host's own places, kept as they are: `/run` and `/var/run` hold the engine socket and the host's other sockets. */
const HOST_ONLY = ['/etc', '/proc', '/sys', '/boot', '/dev', '/run', '/var/run', '/'];
/** Host files Kade replaces itself: it sets TZ in every service. */
const TIME_FILES = new Set(['/etc/localtime', '/etc/timezone']);

const inside = (p: string, dir: string) => p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);

/** Why an app that binds the host's root writable is not imported: no install can allow it. */
export const WRITABLE_ROOT = "binds the host path / writable, which holds Kade's own files that no app may change";

/** Whether a short-syntax volume's mode (`ro`, `ro,z`) makes the bind read-only. */
export const readOnlyMode = (mode: string | undefined): boolean => (mode ?? '').split(',').some((m) => m.trim() === 'ro');
/** Whether a long-syntax volume's `read_only` (or Cosmos's `ReadOnly`) makes the bind read-only. */
export const readOnlyFlag = (v: unknown): boolean => v === true || String(v).trim().toLowerCase() === 'true';

/**
 * Where a host path of the source goes: below the app's data folder, `drop` for the time files Kade sets through
 * TZ, or `host` as it is for the host's own places (the engine socket, `/`, /etc, /proc, /sys, /boot, /dev, /run and
 * /var/run, which hold the socket): a power over the host, which the compose and bind policies give only to an admin
 * who allows it at install. `readOnly` is the bind's mode (unknown for a field's start value): `/` bound writable is
 * refused, since it holds Kade's own files, which no install allows a container to change (bind-structure.ts).
 */
export function hostPath(raw: string, readOnly?: boolean): { sub: string } | { host: string } | 'drop' {
  const p = normalisePath(raw) || '/';
  if (TIME_FILES.has(p)) return 'drop';
  if (p === '/' && readOnly === false) throw refuse(WRITABLE_ROOT);
  if (ENGINE_SOCKETS.includes(p)) return { host: p };
  for (const d of HOST_ONLY) {
    if (d === '/' ? p === '/' : inside(p, d)) return { host: p };
  }
  return { sub: subPath(p) };
}

/** What the import report notes for a host path kept as it is; a folder that holds the engine socket hands it over too. */
export const hostPowerNote = (p: string): string =>
  ENGINE_SOCKETS.includes(p)
    ? `binds the engine socket ${p}: full control of every container on this host, for an admin to allow at install`
    : ENGINE_SOCKETS.some((s) => inside(s, p))
      ? `binds the host path ${p} as it is, which holds the engine socket: full control of every container on this host, for an admin to allow at install`
      : `binds the host path ${p} as it is: a power over the host, for an admin to allow at install`;

/** A path field's start value for a host path of the source: in the app's data folder, or the host's own place as it is. */
export function hostDefault(raw: string): string | undefined {
  const at = hostPath(raw);
  if (at === 'drop') return undefined;
  return 'host' in at ? at.host : `{data_dir}/${at.sub}`;
}

/** A path as a folder below the data folder: no `..`, no odd characters. */
export const subPath = (p: string): string =>
  p
    .split('/')
    .filter((s) => s && s !== '.' && s !== '..' && s !== '~')
    .map((s) => s.replace(/[^A-Za-z0-9._-]+/g, '_'))
    .join('/') || 'data';

/** The data-folder path as template text: `{{appdata_dir}}/<sub>`. */
export const appdataParts = (sub: string): Part[] => [{ field: 'appdata_dir' }, { lit: `/${sub}` }];

export interface PortSpec {
  ip?: string;
  host?: string;
  container: string;
  proto?: string;
}

/** `8080:80/tcp`, `127.0.0.1:8080:80`, `443/tcp` (host port left to the engine). */
export function parsePort(spec: string): PortSpec | null {
  const m = /^(?:(\d{1,3}(?:\.\d{1,3}){3}):)?(?:(\d+):)?(\d+)(?:\/(tcp|udp|sctp))?$/.exec(spec.trim());
  if (!m?.[3]) return null;
  return { container: m[3], ...(m[1] ? { ip: m[1] } : {}), ...(m[2] ? { host: m[2] } : {}), ...(m[4] ? { proto: m[4] } : {}) };
}

/**
 * A published port as a port field and its list item: the container side stays fixed. A port whose host side the
 * engine picks stays so when the field is left empty.
 */
export function portItem(p: PortSpec, id: string, label: TemplateFieldT['label']): { field: TemplateFieldT; item: Item } {
  const tail = `:${p.container}${p.proto && p.proto !== 'tcp' ? `/${p.proto}` : ''}`;
  const ip = p.ip ? `${p.ip}:` : '';
  const field: TemplateFieldT = {
    id,
    label,
    type: 'port',
    required: p.host !== undefined,
    secret: false,
    advanced: false,
    ...(p.host ? { default: Number(p.host) } : {}),
  };
  const published = text([{ lit: ip }, { field: id }, { lit: tail }]);
  if (p.host) return { field, item: published };
  const cond = { field: id, negate: false };
  const engineSide = tail.slice(1);
  return { field, item: { cond, yes: [published], no: [lit(p.ip ? `${p.ip}::${engineSide}` : engineSide)] } };
}

/** The version a template shows: the image's tag, else `latest`. */
export const versionOf = (image: string | undefined): string => {
  const last = (image ?? '').split('/').pop() ?? '';
  const tag = last.includes(':') ? last.slice(last.indexOf(':') + 1).split('@')[0] : '';
  return (tag || 'latest').slice(0, 50);
};

/** HTML of notes and long descriptions as plain text. */
export const plainText = (html: string): string =>
  html
    .replace(/<br\s*\/?>|<\/p>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n+/g, '\n')
    .trim();

export const clip = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max - 1)}…` : s);

/** Labels Kade and compose set themselves; an app that brings them would be refused at install. */
export const OWNER_LABEL = /^(com\.docker\.compose\.|kade\.)/i;

export const emptyRoot = () => map([]) as Extract<ReturnType<typeof map>, { k: 'map' }>;

/**
 * Kade fills `{name}`, `{data_root}` and `{data_dir}` in a field's label, info and default. A source text that
 * holds them literally must not be filled: in labels a word joiner after the brace keeps the text as it reads; a
 * default is kept out of the field and written into the compose file for an empty value (see `fieldParts`).
 */
export const displayText = (s: string): string => s.replace(/\{(name|data_root|data_dir)\}/g, '{\u2060$1}');

const literalDefaults = new WeakMap<TemplateFieldT, string>();

/** The field with its source default, kept literal (never filled by Kade). */
export function withDefault(f: TemplateFieldT, def: string): TemplateFieldT {
  if (!hasPlaceholder(def)) return { ...f, default: clip(def, 4000) };
  const out = { ...f };
  literalDefaults.set(out, def);
  return out;
}

/** A field's placeholder; with a literal default, that default stands when the value is left empty. */
export function fieldParts(f: TemplateFieldT): Part[] {
  const def = literalDefaults.get(f);
  if (def === undefined) return [{ field: f.id }];
  return [
    { when: { field: f.id, negate: false }, parts: [{ field: f.id }] },
    { when: { field: f.id, negate: true }, parts: [{ lit: def.replace(/\$/g, '$$$$') }] },
  ];
}

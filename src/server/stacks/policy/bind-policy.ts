import { lstatSync, readdirSync } from 'node:fs';
import { isSafeName } from '../../../shared/names.ts';
import { isInside, joinPath, normalisePath } from '../../../shared/paths.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor, EventBus } from '../../core/events.ts';
import { allowedDirs, type BindRules, type BindScope, ownDataDir, sockets, spellings } from '../../settings/bind-rules.ts';
import { realPathOf } from '../../settings/path-check.ts';
import { type HostSource, hostSources } from '../../templates/compose-sources.ts';
import { allFields } from '../../templates/render.ts';
import { COMPOSE_NAMES, ENV_FILE } from '../store/stack-files.ts';
import { enforceNoLinks, enforceStructure } from './bind-structure.ts';

/**
 * The bind-path policy: an allow list. A host path an app may use (bind source, device, a file compose reads)
 * must lie, with `..` and `//` normalised and the links of its existing part followed, below
 *  (a) the app's own data folder DATA_DIR/<name>,
 *  (b) the app's own folder (relative `./x` binds; an adopted app's own folder), or
 *  (c) a host folder an admin listed in ALLOWED_HOST_DIRS,
 * and, for every app, /etc/localtime and /etc/timezone bound read-only (the host's time zone).
 * Devices: a serial or video device under /dev (what /api/devices offers), or one below ALLOWED_HOST_DIRS.
 * Kade's own folders (DATA_DIR itself and other apps' data, LIBRARY_DIR, SVC_DATA, BACKUP_DIR) and the
 * engine socket are never allowed, whatever an admin listed. Anything else is refused with one message that
 * says neither whether the path exists nor why; an admin may allow it once by confirming exactly those paths.
 * The engine socket is that and more: a power of its own too (templates/compose-powers.ts), so ALLOW_PRIVILEGED_APPS
 * judges it first and no role but an admin, confirming it here, ever gets it.
 */
export type Judgement = { ok: true; path: string } | { ok: false; path: string; otherApp: string | null };

/** What /api/devices offers: serial ports, video devices and the GPU render nodes (host/devices.ts). */
const OFFERED_DEVICE = /^\/dev\/(tty(USB|ACM)\d+|video\d+|dri(\/[^/]+)?)$/;

const within = (ps: string[], roots: string[]): boolean => {
  const rs = roots.flatMap(spellings);
  return ps.every((x) => rs.some((r) => isInside(x, r)));
};

/** Whether a spelling lies in one of Kade's own folders (or the socket) outside the app's own two folders. */
function inKadeTrees(ps: string[], rules: BindRules, scope: BindScope): boolean {
  const own = [ownDataDir(rules, scope.app), scope.stackDir].flatMap(spellings);
  const kade = [rules.dataDir, rules.libraryDir, rules.stateDir, rules.backupDir, ...sockets(rules.engineSocket)].flatMap(spellings);
  return ps.some((x) => kade.some((k) => isInside(x, k) || isInside(k, x)) && !own.some((o) => isInside(x, o)));
}

/** The installed app whose data folder holds one of the spellings, when it is not `app` itself. */
function otherAppOf(ps: string[], rules: BindRules, app: string): string | null {
  for (const data of spellings(rules.dataDir)) {
    for (const x of ps) {
      if (!isInside(x, data) || x === data) continue;
      const name = x.slice(data === '/' ? 1 : data.length + 1).split('/')[0] ?? '';
      if (name === app || !isSafeName(name)) continue;
      try {
        lstatSync(joinPath(rules.libraryDir, name));
        return name;
      } catch {
        // No app of that name: a stray folder, refused like any other path.
      }
    }
  }
  return null;
}

/** Judges a bind source, `env_file` or other file compose reads; a relative path resolves against the app's folder. */
export function judgePath(raw: string, scope: BindScope, rules: BindRules): Judgement {
  const s = raw.trim();
  if (s === '' || s.startsWith('~') || s.includes('\0')) return { ok: false, path: s, otherApp: null };
  const path = normalisePath(s.startsWith('/') ? s : `${scope.stackDir}/${s}`);
  const ps = spellings(path);
  const allowed = within(ps, [ownDataDir(rules, scope.app), scope.stackDir, ...allowedDirs(rules)]) && !inKadeTrees(ps, rules, scope);
  return allowed ? { ok: true, path } : { ok: false, path, otherApp: otherAppOf(ps, rules, scope.app) };
}

/** Judges a device: a serial or video device under /dev (links followed), or a path below an allowed host folder. */
export function judgeDevice(raw: string, scope: BindScope, rules: BindRules): Judgement {
  const s = raw.trim();
  if (!s.startsWith('/') || s.includes('\0')) return { ok: false, path: s, otherApp: null };
  const path = normalisePath(s);
  const ps = spellings(path);
  const real = realPathOf(path);
  const offered = isInside(path, '/dev') && OFFERED_DEVICE.test(real);
  const listed = within(ps, allowedDirs(rules)) && !inKadeTrees(ps, rules, scope);
  return offered || listed ? { ok: true, path } : { ok: false, path, otherApp: null };
}

/** The `path` field a host source was typed in (the one whose value holds it, longest first), for the form to mark it. */
export function pathFieldOf(template: TemplateFileT, values: Record<string, FieldValue>): (s: HostSource) => string | null {
  const fields = allFields(template)
    .filter(
      (f) =>
        f.type === 'path' &&
        String(values[f.id] ?? '')
          .trim()
          .startsWith('/'),
    )
    .map((f) => ({ id: f.id, v: normalisePath(String(values[f.id])) }))
    .sort((a, b) => b.v.length - a.v.length);
  return (s) => fields.find((f) => s.path.startsWith('/') && isInside(normalisePath(s.path), f.v))?.id ?? null;
}

/** A named volume whose name is another installed app's (`<app>` or `<app>_…`) is that app's data. */
export function judgeVolume(name: string, scope: BindScope, rules: BindRules): Judgement {
  let apps: string[];
  try {
    apps = readdirSync(rules.libraryDir).filter((a) => isSafeName(a) && a !== scope.app);
  } catch {
    apps = [];
  }
  const mine = name === scope.app || name.startsWith(`${scope.app}_`);
  const other = mine ? null : (apps.find((a) => name === a || name.startsWith(`${a}_`)) ?? null);
  return other ? { ok: false, path: name, otherApp: other } : { ok: true, path: name };
}

/**
 * The host's time zone files, bound read-only: how many stores pass the time zone, and no power at all (the
 * container reads the zone and nothing else), so every role may. Bound writable they are refused like any /etc path.
 */
const TIME_FILES = new Set(['/etc/localtime', '/etc/timezone']);
const isTimeFile = (s: Pick<HostSource, 'path' | 'kind' | 'readOnly' | 'mount'>): boolean =>
  s.kind === 'bind' && s.mount === true && s.readOnly === true && s.path.startsWith('/') && TIME_FILES.has(normalisePath(s.path));

export function judge(s: Pick<HostSource, 'path' | 'kind' | 'readOnly' | 'mount'>, scope: BindScope, rules: BindRules): Judgement {
  if (isTimeFile(s)) return { ok: true, path: normalisePath(s.path) };
  if (s.kind === 'device') return judgeDevice(s.path, scope, rules);
  if (s.kind === 'volume') return judgeVolume(s.path, scope, rules);
  if (s.kind === 'container') return { ok: false, path: s.path, otherApp: null };
  return judgePath(s.path, scope, rules);
}

export interface Enforcement {
  actor: Actor;
  /** `confirm_outside_paths` of the request: an admin lists exactly the refused paths to allow them once. */
  confirm?: readonly string[] | undefined;
  events: EventBus;
  /** The field a refused source was typed in (an extra folder, a form field), for the form to mark it. */
  fieldOf?: (s: HostSource) => string | null;
  /** Outside paths an admin confirmed when the app's files were written (file-seal.ts): allowed again without a new confirmation. */
  approved?: ReadonlySet<string>;
  /** The files compose reads for the app (default: the compose file names and `.env` in its folder), for the structure rules. */
  files?: readonly string[];
}

/** The one refusal text: it names the rule, never whether the path exists or why it failed. */
const notAllowed = (path: string, own: string) =>
  `'${path}' is not allowed: an app may use only its own data folder (${own}), its own folder, the host folders an admin allowed (ALLOWED_HOST_DIRS) and the serial and video devices Kade lists`;

/**
 * Judges every host path of the sources; refuses the first refused one (AppError forbidden_path) unless the actor is
 * an admin who confirmed exactly the refused paths, which is audited (`stack.outside_path_allowed`).
 */
export function enforceSources(sources: HostSource[], scope: BindScope, rules: BindRules, e: Enforcement): void {
  const refused = sources.flatMap((s) => {
    const j = judge(s, scope, rules);
    return j.ok || (j.otherApp === null && e.approved?.has(j.path)) ? [] : [{ s, j }];
  });
  if (refused.length === 0) return;
  const fieldsOf = (list: typeof refused) => [...new Set(list.map((r) => e.fieldOf?.(r.s) ?? r.s.where))];
  const own = ownDataDir(rules, scope.app);
  const other = refused.find((r) => r.j.otherApp !== null);
  if (other?.j.otherApp) {
    const app = other.j.otherApp;
    const what = other.s.kind === 'volume' ? `is a volume of the app '${app}'` : `lies in the data folder of the app '${app}'`;
    throw new AppError('forbidden_path', `'${other.j.path}' ${what}: an app may use only its own data folder (${own}) and volumes`, {
      params: { path: other.j.path, reason: 'other_app', app, own },
      fields: fieldsOf([other]),
    });
  }
  const paths = [...new Set(refused.map((r) => r.j.path))];
  const admin = roleAllows(e.actor.role, 'admin');
  const confirmed = new Set((e.confirm ?? []).map((p) => (p.trim().startsWith('/') ? normalisePath(p) : p.trim())));
  if (admin && confirmed.size === paths.length && paths.every((p) => confirmed.has(p))) {
    e.events.emit({
      type: 'stack.outside_path_allowed',
      actor: e.actor,
      source: 'stacks',
      target: scope.app,
      status: 'ok',
      detail: { paths: paths.join(', ') },
    });
    return;
  }
  const first = paths[0] ?? '';
  const hint = admin ? `. As an admin you can allow it once: send "confirm_outside_paths": ${JSON.stringify(paths)}` : '';
  const params: Record<string, string> = { path: first, reason: 'not_allowed', own };
  if (admin) params.confirm = paths.join('\n');
  throw new AppError('forbidden_path', `${notAllowed(first, own)}${hint}`, { params, fields: fieldsOf(refused) });
}

/** The policy on a final compose document: every writer calls this with the text it is about to write and the `.env` values. */
export function enforceCompose(text: string, env: Record<string, string>, scope: BindScope, rules: BindRules, e: Enforcement): void {
  let sources: HostSource[];
  try {
    sources = hostSources(text, env);
  } catch (err) {
    throw new AppError('compose_invalid', `the compose file cannot be read: ${(err as Error).message.split('\n')[0]}`, { fields: ['content'] });
  }
  enforceSources(sources, scope, rules, e);
  enforceNoLinks(sources, scope, rules, e.fieldOf);
  // Past the allow list, the paths an admin confirmed (now or when the files were written) may read the app's own files.
  const approved = new Set([...(e.approved ?? []), ...(e.confirm ?? []).map((p) => normalisePath(p))]);
  enforceStructure(sources, { ...scope, files: e.files ?? ownFiles(scope.stackDir) }, approved);
}

/** The files compose reads in an app's folder: every compose file name and `.env`. */
const ownFiles = (dir: string): string[] => [...COMPOSE_NAMES, ENV_FILE].map((f) => joinPath(dir, f));

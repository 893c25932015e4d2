import { isInside, normalisePath } from '../../shared/paths.ts';
import { fillPlaceholders } from '../../shared/placeholders.ts';
import type { StorePowerT } from '../../shared/powers.ts';
import type { FieldValue, TemplateFileT } from '../../shared/template.ts';
import { composePowers, ENGINE_SOCKETS } from './compose-powers.ts';
import { hostSources } from './compose-sources.ts';
import { allFields, renderTemplate } from './render.ts';
import { toggleId } from './values.ts';

/** Where the stand-in data folders of the look below lie: any bind below it is the app's own data. */
const STAND_IN = '/kade-app-data';
const STAND_IN_NAME = 'app';
/** The host's time zone, read-only: no power (bind-policy.ts allows it for everyone). */
const TIME_FILES = new Set(['/etc/localtime', '/etc/timezone']);

/** The values the form starts with; a path field without a host folder of its own gets a folder of the app's data. */
function startValues(template: TemplateFileT): { values: Record<string, FieldValue>; folders: string[] } {
  const values: Record<string, FieldValue> = {};
  const folders: string[] = [STAND_IN];
  const fill = (s: string) => fillPlaceholders(s, { name: STAND_IN_NAME, dataRoot: STAND_IN });
  for (const f of allFields(template)) {
    const def = typeof f.default === 'string' ? fill(f.default) : f.default;
    if (f.type === 'path') {
      const path = f.id !== 'appdata_dir' && typeof def === 'string' && def.startsWith('/') ? def : `${STAND_IN}/${f.id}`;
      // A folder typed in a field is the install's to judge at that field; only what the template names is a power here.
      if (normalisePath(path) !== '/') folders.push(normalisePath(path));
      values[f.id] = path;
    } else values[f.id] = def ?? (f.type === 'boolean' ? false : `kadecheck${f.id.replace(/_/g, 'x')}`);
  }
  for (const g of template.groups) if (g.toggle) values[toggleId(g.id)] = g.toggle_default;
  return { values, folders };
}

/** Host folders and files the template itself binds outside the app's folders, each with whether it only reads them. */
function hostPaths(compose: string, env: Record<string, string>, folders: string[]): StorePowerT[] {
  const out = new Map<string, StorePowerT>();
  for (const s of hostSources(compose, env)) {
    if (s.kind !== 'bind' || !s.mount || !s.path.startsWith('/')) continue;
    const path = normalisePath(s.path.replace(/\$\$/g, '$'));
    const readOnly = s.readOnly === true;
    if ((readOnly && TIME_FILES.has(path)) || ENGINE_SOCKETS.includes(path) || folders.some((f) => isInside(path, f))) continue;
    const seen = out.get(path);
    if (seen) seen.read_only &&= readOnly;
    else out.set(path, { power: 'host_path', value: path, read_only: readOnly });
  }
  return [...out.values()];
}

/**
 * The powers over the host an app of the store gets with the values its form starts with, named as the install's
 * review names them (for the store's badge and the import report): the compose policy's powers (the engine socket
 * among them, also when a bound folder holds it: `/var/run`, `/run`, `/`) and the host paths the template itself binds. A template that does not render gives none: the
 * catalogue leaves it out anyway. The install judges again, with the values given and as the user who installs.
 */
export function templatePowers(template: TemplateFileT, compose: string): StorePowerT[] {
  try {
    const { values, folders } = startValues(template);
    const render = renderTemplate({ template, compose, values, timezone: 'UTC' });
    const seen = new Set<string>();
    const kernel = composePowers(render.compose, render.env, ENGINE_SOCKETS, { holders: true }).flatMap((u): StorePowerT[] => {
      const key = `${u.power}:${u.value}`;
      if (seen.has(key)) return [];
      seen.add(key);
      return [{ power: u.power, value: u.value, read_only: false }];
    });
    return [...kernel, ...hostPaths(render.compose, render.env, folders)];
  } catch {
    return [];
  }
}

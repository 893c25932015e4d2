import { existsSync, lstatSync, realpathSync, rmSync } from 'node:fs';
import { isInside, normalisePath } from '../../../shared/paths.ts';
import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { ownDataDir } from '../../settings/bind-rules.ts';
import { declaredVolumes, hostSources } from '../../templates/compose-sources.ts';
import { allFields } from '../../templates/render.ts';

/**
 * Each installed app owns DATA_DIR/<its name>. `appdata_dir` absent, empty or the DATA_DIR root itself (what older
 * forms sent) becomes that folder. Another optional `path` field left empty (or the root) becomes a folder of its own
 * below it, named after the field (`downloads_dir` → DATA_DIR/<name>/downloads), so two fields never share one folder.
 * A required one left empty stays empty and is refused as required. Other values stay as typed.
 */
export function appDataValues(
  template: TemplateFileT,
  input: Record<string, FieldValue>,
  ctx: { dataDir: string; name: string; keepAbsent?: boolean },
): Record<string, FieldValue> {
  const own = ownDataDir(ctx, ctx.name);
  const root = normalisePath(ctx.dataDir);
  const out = { ...input };
  for (const f of allFields(template)) {
    if (f.type !== 'path') continue;
    const has = Object.hasOwn(input, f.id);
    const v = has ? String(input[f.id] ?? '').trim() : null;
    const isRoot = v?.startsWith('/') === true && normalisePath(v) === root;
    const noDefault = f.default === undefined || String(f.default).trim() === '';
    if (f.id === 'appdata_dir') {
      if (v === '' || isRoot || (!has && !ctx.keepAbsent)) out[f.id] = own;
      continue;
    }
    const fill = isRoot || (!f.required && (v === '' || (!has && !ctx.keepAbsent && noDefault)));
    if (fill) out[f.id] = `${own}/${f.id.replace(/_(dir|path|folder)$/, '') || f.id}`;
  }
  return out;
}

export interface AppData {
  folders: string[];
  volumes: string[];
}

/**
 * What "remove data" removes: the app's own DATA_DIR/<name> when it exists, the bind sources of its compose
 * that lie below it, and the named volumes of its compose project. Never DATA_DIR itself, another app's
 * folder or an admin-listed host folder: only what lies below the app's own data folder.
 */
export function appDataOf(
  a: { name: string; dataDir: string; composeText: string; env: Record<string, string>; stackDir: string; project: string },
  existingVolumes: readonly string[],
): AppData {
  const own = ownDataDir(a, a.name);
  let realOwn: string | null = null;
  try {
    // A link in place of the folder would point the removal elsewhere: only a real folder counts.
    if (!lstatSync(own).isSymbolicLink()) realOwn = realpathSync(own);
  } catch {
    realOwn = null;
  }
  const found: string[] = realOwn ? [own] : [];
  let sources: ReturnType<typeof hostSources> = [];
  try {
    sources = hostSources(a.composeText, a.env);
  } catch {
    sources = [];
  }
  for (const s of sources) {
    if (s.kind !== 'bind' || s.path === '') continue;
    const p = normalisePath(s.path.startsWith('/') ? s.path : `${a.stackDir}/${s.path}`);
    if (!realOwn || p === own || !isInside(p, own) || !existsSync(p)) continue;
    // Through a link inside the folder the path may lead out of it: only what really lies below it counts.
    if (isInside(realpathSync(p), realOwn)) found.push(p);
  }
  // A folder inside another listed folder goes with it: list each once, outermost first.
  const folders = [...new Set(found)].sort().filter((p, i, all) => !all.slice(0, i).some((q) => isInside(p, q)));
  const declared = new Set(declaredVolumes(a.composeText, a.project));
  const volumes = existingVolumes.filter((v) => declared.has(v)).sort();
  return { folders, volumes };
}

/** Removes one of the folders `appDataOf` listed (DATA_DIR/<name> or a bind source below it), with all it holds. */
export const removeAppFolder = (path: string): void => rmSync(path, { recursive: true, force: true });

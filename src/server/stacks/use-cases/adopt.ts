import { basename } from 'node:path';
import { isSafeName } from '../../../shared/names.ts';
import { isInside, normalisePath } from '../../../shared/paths.ts';
import { requireRole } from '../../core/authorize.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { enforceCompose } from '../policy/bind-policy.ts';
import { enforceComposePolicy } from '../policy/compose-policy.ts';
import { parseEnv } from '../store/env-file.ts';
import { emptyMeta, parseComposeDoc } from '../store/stack-files.ts';
import type { StackContext } from './stack-context.ts';

/** The project name compose gives a folder when the file names none: v2 keeps - and _, v1 drops them. */
export function defaultProjectName(dir: string, variant: 'v1' | 'v2'): string {
  const base = basename(dir).toLowerCase();
  return variant === 'v2' ? base.replace(/[^a-z0-9_-]/g, '').replace(/^[_-]+/, '') : base.replace(/[^a-z0-9]/g, '');
}

/**
 * Adopt: a compose app that runs outside Kade comes under management without being moved or copied.
 * LIBRARY_DIR/<name> becomes a link to the user's folder and the metadata goes to Kade's own state,
 * so nothing in that folder changes. Compose keeps the project name the running containers carry.
 */
export function createAdopt(c: StackContext) {
  async function projectOf(dir: string, doc: Record<string, unknown>): Promise<string> {
    if (typeof doc.name === 'string' && doc.name !== '') return doc.name;
    // Containers already running from this folder say which project they are.
    const running = (await c.engine.listContainers({ composeOnly: true })).find((ct) => ct.workingDir === dir && ct.project);
    if (running?.project) return running.project;
    return defaultProjectName(dir, await c.compose.variant());
  }

  return async function adopt(actor: Actor, req: { path: string; name?: string | undefined; confirm_outside_paths?: string[] | undefined }): Promise<string> {
    requireRole(actor, 'operator', 'adopting an app');
    const base = c.store.realpath(c.baseDir) ?? c.baseDir;
    const unreachable = (why: string) =>
      new AppError('path_unreachable', `Kade cannot see ${req.path}${why}; the folder must lie below BASE_DIR (${base}), the folder mounted into Kade`, {
        params: { field: 'path', path: req.path, base, reason: 'outside_base' },
        fields: ['path'],
      });
    if (!req.path.startsWith('/')) throw new AppError('validation', `'${req.path}' is not an absolute path`, { params: { path: req.path }, fields: ['path'] });
    const folder = c.store.foreignFolder(normalisePath(req.path));
    if (!folder) throw unreachable(' (it does not exist here)');
    const { real } = folder;
    if (!isInside(real, base) || real === base) throw unreachable('');
    if (!folder.isDir) throw new AppError('validation', `'${req.path}' is not a folder`, { params: { path: req.path }, fields: ['path'] });
    const library = c.store.realpath(c.store.libraryDir) ?? c.store.libraryDir;
    if (isInside(real, library))
      throw new AppError('conflict', `'${req.path}' is already an app folder of Kade`, { params: { path: req.path }, fields: ['path'] });
    const file = folder.composeFile;
    if (!file)
      throw new AppError('validation', `'${req.path}' has no compose file (docker-compose.yml or compose.yaml)`, {
        params: { path: req.path },
        fields: ['path'],
      });

    const project = await projectOf(real, parseComposeDoc(folder.compose));
    const name = req.name ?? project;
    if (!isSafeName(name)) {
      throw new AppError('invalid_name', `'${name}' is not a valid app name: give a name of lower-case letters, digits, _ and -`, {
        params: { name },
        fields: ['name'],
      });
    }
    if (c.store.find(name)) throw new AppError('name_taken', `an app named '${name}' exists already`, { params: { name }, fields: ['name'] });
    for (const other of c.store.adoptedPaths()) {
      if (other.path === real)
        throw new AppError('conflict', `'${req.path}' is adopted already as '${other.name}'`, {
          params: { path: req.path, stack: other.name },
          fields: ['path'],
        });
    }
    // Its compose may bind below its own folder (and DATA_DIR/<name>); every other host path follows the bind policy.
    enforceCompose(folder.compose, parseEnv(folder.env), { app: name, stackDir: real }, c.binds, {
      actor,
      confirm: req.confirm_outside_paths,
      events: c.events,
    });
    enforceComposePolicy(actor, folder.compose, { envText: folder.env, allow: c.allowPrivileged() });
    const adopted = { name: project, stack: name, dir: real, file };
    await c.compose.validate(adopted, { actor, confirmed: req.confirm_outside_paths });

    const meta = emptyMeta(c.clock().toISOString(), { adopted: { path: real, project } });
    // Judged above as this user: the files as they are now are the ones Kade runs (a later hand edit asks an admin to accept it).
    c.store.adopt(name, real, `${JSON.stringify(meta, null, 2)}\n`, actor);
    c.events.emit({ type: 'stack.adopted', actor, source: 'stacks', target: name, status: 'ok', detail: { path: real, project } });
    return name;
  };
}

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { requireRole } from '../core/authorize.ts';
import { AppError } from '../core/errors.ts';
import type { Actor } from '../core/events.ts';
import { writeFileAtomic } from '../core/fs-atomic.ts';
import { enforceCompose } from './bind-policy.ts';
import { enforceComposePolicy, enforceEnvKeys } from './compose-policy.ts';
import { checkEnvText, maskEnv, parseEnv, unmaskEnv } from './env-file.ts';
import type { StackContext } from './stack-context.ts';
import { COMPOSE_FILE, readTextOrEmpty } from './stack-files.ts';

/** Invalid YAML, or YAML that is no compose file: refused before anything is written. */
function checkComposeYaml(content: string): void {
  const doc = parseDocument(content, { uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const line = first.linePos?.[0]?.line;
    throw new AppError('compose_invalid', `the compose file is not valid YAML${line ? ` (line ${line})` : ''}: ${first.message.split('\n')[0]}`, {
      params: line ? { line } : {},
      fields: ['content'],
    });
  }
  let js: unknown;
  try {
    js = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new AppError('compose_invalid', `the compose file cannot be read: ${(e as Error).message}`, { fields: ['content'] });
  }
  const services = isMap(doc.contents) ? (js as Record<string, unknown>).services : undefined;
  if (!services || typeof services !== 'object' || Array.isArray(services) || Object.keys(services).length === 0) {
    throw new AppError('compose_invalid', 'the compose file has no services', { fields: ['content'] });
  }
}

/**
 * The `.env` and compose editors. Each save takes a snapshot first (the user can return to it), writes
 * atomically and is audited; the `.env` stays 0600. Saving does not restart the app.
 */
export function createEditors(c: StackContext) {
  /**
   * The `.env` text with secret values masked; `reveal` answers it in clear and is audited, so
   * reading secrets off the screen is a deliberate, recorded act.
   */
  function readEnv(actor: Actor, name: string, reveal = false): { content: string; masked: string[] } {
    requireRole(actor, 'admin', 'the .env file (it holds secrets)');
    const loc = c.dirs.locate(name);
    const text = readTextOrEmpty(loc.envPath);
    if (!reveal) return maskEnv(text, Object.values(c.dirs.meta(loc)?.secret_env ?? {}));
    c.events.emit({ type: 'stack.env_revealed', actor, source: 'stacks', target: name, status: 'ok', detail: {} });
    return { content: text, masked: [] };
  }

  function writeEnv(actor: Actor, name: string, content: string, confirm?: string[]): { content: string; snapshot: string } {
    requireRole(actor, 'admin', 'editing the .env file');
    const loc = c.dirs.locate(name);
    // Lines still masked keep the secret they stood for: the mask never reaches the file.
    content = unmaskEnv(content, readTextOrEmpty(loc.envPath));
    checkEnvText(content);
    // A variable the compose file interpolates into a bind source moves that bind: judged with the new values.
    const compose = loc.composeFile ? readTextOrEmpty(loc.composeFile) : '';
    enforceEnvKeys(parseEnv(content));
    enforceCompose(compose, parseEnv(content), { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
    c.jobs.checkFree(name);
    const snap = c.snapshots.take(loc, 'env_edit');
    const text = content === '' || content.endsWith('\n') ? content : `${content}\n`;
    const composeFile = loc.composeFile;
    if (composeFile) c.gate.write([{ path: loc.envPath, content: text, mode: 0o600 }], actor, () => c.dirs.project({ ...loc, composeFile }));
    else writeFileAtomic(loc.envPath, text, 0o600);
    chmodSync(loc.envPath, 0o600);
    c.events.emit({ type: 'stack.env_edited', actor, source: 'stacks', target: name, status: 'ok', detail: { snapshot: snap.id } });
    return { content: maskEnv(text, Object.values(c.dirs.meta(loc)?.secret_env ?? {})).content, snapshot: snap.id };
  }

  function readCompose(actor: Actor, name: string): { content: string } {
    requireRole(actor, 'viewer', 'the compose file');
    const loc = c.dirs.locate(name);
    return { content: loc.composeFile ? readTextOrEmpty(loc.composeFile) : '' };
  }

  /** Checked as YAML, then by the compose CLI on a copy beside Kade's state, before the real file changes. */
  async function writeCompose(actor: Actor, name: string, content: string, confirm?: string[]): Promise<{ content: string; snapshot: string }> {
    requireRole(actor, 'admin', 'editing the compose file');
    const loc = c.dirs.locate(name);
    checkComposeYaml(content);
    enforceComposePolicy(actor, content, { envText: readTextOrEmpty(loc.envPath), allow: c.allowPrivileged() });
    enforceCompose(content, parseEnv(readTextOrEmpty(loc.envPath)), { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
    c.jobs.checkFree(name);
    const file = loc.composeFile ?? join(loc.dir, COMPOSE_FILE);
    mkdirSync(c.tmpDir, { recursive: true, mode: 0o700 });
    const candidate = join(c.tmpDir, `${name}-${randomBytes(4).toString('hex')}.yml`);
    writeFileAtomic(candidate, content, 0o600);
    try {
      await c.compose.validate({ ...c.dirs.project({ ...loc, composeFile: file }), file: candidate }, { actor, confirmed: confirm });
    } finally {
      rmSync(candidate, { force: true });
    }
    const snap = c.snapshots.take(loc, 'compose_edit');
    const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o644;
    c.gate.write([{ path: file, content, mode }], actor, () => c.dirs.project({ ...loc, composeFile: file }));
    c.events.emit({ type: 'stack.compose_edited', actor, source: 'stacks', target: name, status: 'ok', detail: { snapshot: snap.id } });
    return { content, snapshot: snap.id };
  }

  function snapshots(actor: Actor, name: string) {
    requireRole(actor, 'operator', 'the snapshots of an app');
    c.dirs.locate(name);
    return c.snapshots.list(name);
  }

  /** Returns to a snapshot; the files as they are now are kept as a snapshot first, so this is undoable too. */
  function restoreSnapshot(actor: Actor, name: string, id: string, confirm?: string[]): { restored: string; snapshot: string } {
    requireRole(actor, 'admin', 'restoring a snapshot');
    const loc = c.dirs.locate(name);
    if (!c.snapshots.list(name).some((s) => s.id === id))
      throw new AppError('not_found', `snapshot '${id}' does not exist`, { params: { what: 'snapshot', name: id } });
    // The files a restore brings back are judged like any other write: an old snapshot does not bypass the policy.
    const kept = c.snapshots.texts(name, id);
    const compose = kept.compose ?? (loc.composeFile ? readTextOrEmpty(loc.composeFile) : '');
    const env = parseEnv(kept.env ?? readTextOrEmpty(loc.envPath));
    enforceComposePolicy(actor, compose, { env, allow: c.allowPrivileged() });
    enforceCompose(compose, env, { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
    // A job of its own (log, slot, the snapshot recorded before the first write), so a crash mid-restore is rolled back at the next start.
    const { result: before } = c.jobs.runNow({ kind: 'stack.snapshot_restore', stack: name, actor }, (ctx) => {
      const taken = c.snapshots.take(loc, 'restore');
      ctx.record({ snapshot: taken.id, target: id });
      ctx.log(`snapshot ${taken.id} taken of the files as they were; restoring snapshot ${id}`);
      c.snapshots.restore(loc, id);
      // Judged above as this admin, so sealed as theirs (a snapshot from before seals existed has none of its own).
      const now = c.dirs.find(name);
      if (now?.composeFile) c.gate.seal(c.dirs.project(now), actor);
      return taken;
    });
    c.events.emit({ type: 'stack.snapshot_restored', actor, source: 'stacks', target: name, status: 'ok', detail: { snapshot: id } });
    return { restored: id, snapshot: before.id };
  }

  return { readEnv, writeEnv, readCompose, writeCompose, snapshots, restoreSnapshot };
}

import { isMap, parseDocument } from 'yaml';
import { requireRole } from '../../core/authorize.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { enforceCompose } from '../policy/bind-policy.ts';
import { enforceComposePolicy, enforceEnvKeys } from '../policy/compose-policy.ts';
import { checkEnvText, maskEnv, parseEnv, unmaskEnv } from '../store/env-file.ts';
import type { StackContext } from './stack-context.ts';

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
 * The `.env` and compose editors. Each save goes through the stack store: a snapshot first (the user can return to
 * it), the file written atomically (`.env` 0600) and sealed, and is audited. Saving does not restart the app.
 */
export function createEditors(c: StackContext) {
  /**
   * The `.env` text with secret values masked; `reveal` answers it in clear and is audited, so
   * reading secrets off the screen is a deliberate, recorded act.
   */
  function readEnv(actor: Actor, name: string, reveal = false): { content: string; masked: string[] } {
    requireRole(actor, 'admin', 'the .env file (it holds secrets)');
    const loc = c.store.locate(name);
    const text = c.store.envText(loc);
    if (!reveal) return maskEnv(text, Object.values(c.store.meta(loc)?.secret_env ?? {}));
    c.events.emit({ type: 'stack.env_revealed', actor, source: 'stacks', target: name, status: 'ok', detail: {} });
    return { content: text, masked: [] };
  }

  function writeEnv(actor: Actor, name: string, content: string, confirm?: string[]): { content: string; snapshot: string } {
    requireRole(actor, 'admin', 'editing the .env file');
    const loc = c.store.locate(name);
    // Lines still masked keep the secret they stood for: the mask never reaches the file.
    content = unmaskEnv(content, c.store.envText(loc));
    checkEnvText(content);
    // A variable the compose file interpolates into a bind source moves that bind: judged with the new values.
    const compose = c.store.read(loc, 'compose') ?? '';
    enforceEnvKeys(parseEnv(content));
    enforceCompose(compose, parseEnv(content), { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
    c.jobs.checkFree(name);
    const text = content === '' || content.endsWith('\n') ? content : `${content}\n`;
    const snap = c.store.write(loc, { env: text }, { actor, snapshot: 'env_edit' });
    c.events.emit({ type: 'stack.env_edited', actor, source: 'stacks', target: name, status: 'ok', detail: { snapshot: snap.id } });
    return { content: maskEnv(text, Object.values(c.store.meta(loc)?.secret_env ?? {})).content, snapshot: snap.id };
  }

  function readCompose(actor: Actor, name: string): { content: string } {
    requireRole(actor, 'viewer', 'the compose file');
    const loc = c.store.locate(name);
    return { content: c.store.read(loc, 'compose') ?? '' };
  }

  /** Checked as YAML, then by the compose CLI on a copy beside Kade's state, before the real file changes. */
  async function writeCompose(actor: Actor, name: string, content: string, confirm?: string[]): Promise<{ content: string; snapshot: string }> {
    requireRole(actor, 'admin', 'editing the compose file');
    const loc = c.store.locate(name);
    checkComposeYaml(content);
    const envText = c.store.envText(loc);
    enforceComposePolicy(actor, content, { envText, allow: c.allowPrivileged() });
    enforceCompose(content, parseEnv(envText), { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
    c.jobs.checkFree(name);
    await c.store.withCandidate(loc, content, (candidate) => c.compose.validate(candidate, { actor, confirmed: confirm }));
    const snap = c.store.write(loc, { compose: content }, { actor, snapshot: 'compose_edit' });
    c.events.emit({ type: 'stack.compose_edited', actor, source: 'stacks', target: name, status: 'ok', detail: { snapshot: snap.id } });
    return { content, snapshot: snap.id };
  }

  function snapshots(actor: Actor, name: string) {
    requireRole(actor, 'operator', 'the snapshots of an app');
    c.store.locate(name);
    return c.store.snapshots.list(name);
  }

  /** Returns to a snapshot; the files as they are now are kept as a snapshot first, so this is undoable too. */
  function restoreSnapshot(actor: Actor, name: string, id: string, confirm?: string[]): { restored: string; snapshot: string } {
    requireRole(actor, 'admin', 'restoring a snapshot');
    const loc = c.store.locate(name);
    if (!c.store.snapshots.list(name).some((s) => s.id === id))
      throw new AppError('not_found', `snapshot '${id}' does not exist`, { params: { what: 'snapshot', name: id } });
    // The files a restore brings back are judged like any other write: an old snapshot does not bypass the policy.
    const kept = c.store.snapshots.texts(name, id);
    const compose = kept.compose ?? c.store.read(loc, 'compose') ?? '';
    const env = parseEnv(kept.env ?? c.store.envText(loc));
    enforceComposePolicy(actor, compose, { env, allow: c.allowPrivileged() });
    enforceCompose(compose, env, { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
    // A job of its own (log, slot, the snapshot recorded before the first write), so a crash mid-restore is rolled back at the next start.
    const { result: before } = c.jobs.runNow({ kind: 'stack.snapshot_restore', stack: name, actor }, (ctx) =>
      // Judged above as this admin, so sealed as theirs (a snapshot from before seals existed has none of its own).
      c.store.restore(loc, id, {
        actor,
        snapshot: 'restore',
        beforeWrite: (taken) => {
          ctx.record({ snapshot: taken?.id ?? '', target: id });
          ctx.log(`snapshot ${taken?.id ?? ''} taken of the files as they were; restoring snapshot ${id}`);
        },
      }),
    );
    c.events.emit({ type: 'stack.snapshot_restored', actor, source: 'stacks', target: name, status: 'ok', detail: { snapshot: id } });
    return { restored: id, snapshot: before.id };
  }

  return { readEnv, writeEnv, readCompose, writeCompose, snapshots, restoreSnapshot };
}

import { isMap, parseDocument } from 'yaml';
import { roleAllows } from '../../../shared/roles.ts';
import { requireRole } from '../../core/authorize.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { enforceCompose } from '../policy/bind-policy.ts';
import { enforceComposePolicy, enforceEnvKeys } from '../policy/compose-policy.ts';
import { composeSecrets, maskCompose, unmaskCompose } from '../store/compose-mask.ts';
import {
  checkEnvText,
  ENV_MASK,
  type EnvSecrets,
  envKeys,
  envSecrets,
  markedSecretKeys,
  maskEnv,
  maskUrlPasswords,
  parseEnv,
  unmaskEnv,
} from '../store/env-file.ts';
import type { StackLocation } from '../store/stack-dir.ts';
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

const isAdmin = (actor: Actor) => roleAllows(actor.role, 'admin');

/** The `.env` keys Kade keeps secret for an app: the template's secret fields and the keys kept in `.svc.json`. */
function namedSecrets(c: StackContext, loc: StackLocation): string[] {
  const meta = c.store.meta(loc);
  return [...Object.values(meta?.secret_env ?? {}), ...(meta?.secret_keys ?? [])];
}

const secretsOf = (c: StackContext, loc: StackLocation, envText = c.store.envText(loc)): EnvSecrets => envSecrets(envText, namedSecrets(c, loc));

/** What a refusal must not quote to a non-admin: the secrets of these `.env` texts and those these compose texts hold inline. */
const secretWords = (c: StackContext, loc: StackLocation, envTexts: string[], composeTexts: string[]): string[] => [
  ...envTexts.flatMap((t) => secretsOf(c, loc, t).values),
  ...composeTexts.flatMap(composeSecrets),
];

/**
 * Runs a judgment for `actor`; for a non-admin a refusal's words lose every secret value and URL password in them (a
 * bind path or a compose error may quote a value interpolated from `.env`).
 */
function hidingSecrets<T>(actor: Actor, values: readonly string[], work: () => T): T {
  if (isAdmin(actor)) return work();
  const longest = [...new Set(values)].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length);
  const hide = (text: string) => maskUrlPasswords(longest.reduce((acc, v) => acc.split(v).join(ENV_MASK), text));
  const scrub = (err: unknown): never => {
    if (!(err instanceof AppError)) throw err;
    const params = Object.fromEntries(Object.entries(err.params).map(([k, v]) => [k, typeof v === 'string' ? hide(v) : v]));
    throw new AppError(err.code, hide(err.message), { params, fields: err.fields, cause: err });
  };
  try {
    const result = work();
    return (result instanceof Promise ? result.catch(scrub) : result) as T;
  } catch (err) {
    return scrub(err);
  }
}

/**
 * `.svc.json` after a `.env` save, or null when it stays: the keys kept secret are those marked `# secret` now or
 * before, and, after a non-admin's save, every line that was masked for them (a line kept masked never comes back in
 * clear because the secret it held changed), as long as the key is in the file.
 */
function keptSecretsMeta(c: StackContext, loc: StackLocation, actor: Actor, oldText: string, text: string): string | null {
  const meta = c.store.meta(loc);
  if (!meta) return null;
  const hiddenBefore = isAdmin(actor) ? [] : maskEnv(oldText, namedSecrets(c, loc)).masked;
  const present = new Set(envKeys(text));
  const keys = [...new Set([...(meta.secret_keys ?? []), ...markedSecretKeys(text), ...hiddenBefore])]
    .filter((k) => present.has(k) && !Object.values(meta.secret_env).includes(k))
    .sort();
  if (keys.join('\n') === (meta.secret_keys ?? []).join('\n')) return null;
  return `${JSON.stringify({ ...meta, secret_keys: keys }, null, 2)}\n`;
}

/**
 * The `.env` text with secret values masked; `reveal` (admins only) answers it in clear and is audited, so reading
 * secrets off the screen is a deliberate, recorded act. Operators see the masked text only.
 */
function readEnv(c: StackContext, actor: Actor, name: string, reveal = false): { content: string; masked: string[] } {
  requireRole(actor, 'operator', 'the .env file');
  if (reveal) requireRole(actor, 'admin', 'showing the secrets of the .env file');
  const loc = c.store.locate(name);
  const text = c.store.envText(loc);
  if (!reveal) return maskEnv(text, namedSecrets(c, loc));
  c.events.emit({ type: 'stack.env_revealed', actor, source: 'stacks', target: name, status: 'ok', detail: {} });
  return { content: text, masked: [] };
}

/**
 * Saves the `.env` text: a line still masked keeps the value it stood for; judged as the actor (`.env` keys, the
 * compose file's powers and host paths with the new values) before the snapshot and the write.
 */
function writeEnv(c: StackContext, actor: Actor, name: string, edited: string, confirm?: string[]): { content: string; snapshot: string } {
  requireRole(actor, 'operator', 'editing the .env file');
  const loc = c.store.locate(name);
  const oldText = c.store.envText(loc);
  // Lines still masked keep the secret they stood for: the mask never reaches the file.
  const content = unmaskEnv(edited, oldText, namedSecrets(c, loc));
  checkEnvText(content);
  const env = parseEnv(content);
  const compose = c.store.read(loc, 'compose') ?? '';
  hidingSecrets(actor, secretWords(c, loc, [oldText, content], [compose]), () => {
    enforceEnvKeys(env);
    // A variable the compose file interpolates can move a bind source or ask for a power: judged with the new values.
    enforceComposePolicy(actor, compose, { env, allow: c.allowPrivileged() });
    enforceCompose(compose, env, { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
  });
  c.jobs.checkFree(name);
  const text = content === '' || content.endsWith('\n') ? content : `${content}\n`;
  const meta = keptSecretsMeta(c, loc, actor, oldText, text);
  const snap = c.store.write(loc, meta ? { env: text, meta } : { env: text }, { actor, snapshot: 'env_edit' });
  c.events.emit({ type: 'stack.env_edited', actor, source: 'stacks', target: name, status: 'ok', detail: { snapshot: snap.id } });
  return { content: maskEnv(text, namedSecrets(c, loc)).content, snapshot: snap.id };
}

/** The compose text: in clear for admins, for everyone else with its secrets masked (compose-mask.ts). */
function readCompose(c: StackContext, actor: Actor, name: string): { content: string } {
  requireRole(actor, 'viewer', 'the compose file');
  const loc = c.store.locate(name);
  const text = c.store.read(loc, 'compose') ?? '';
  return { content: isAdmin(actor) ? text : maskCompose(text, secretsOf(c, loc)) };
}

/**
 * Checked as YAML, by the policies as the actor, then by the compose CLI on a copy beside Kade's state (through the
 * gate), before the real file changes. A non-admin's masked values keep what they stood for.
 */
async function writeCompose(c: StackContext, actor: Actor, name: string, edited: string, confirm?: string[]): Promise<{ content: string; snapshot: string }> {
  requireRole(actor, 'operator', 'editing the compose file');
  const loc = c.store.locate(name);
  const secrets = secretsOf(c, loc);
  const oldText = c.store.read(loc, 'compose') ?? '';
  const content = isAdmin(actor) ? edited : unmaskCompose(edited, oldText, secrets);
  checkComposeYaml(content);
  const envText = c.store.envText(loc);
  // The compose file's own secrets (the stored ones and, unmasked, the saved ones) are hidden as the `.env` ones are.
  await hidingSecrets(actor, secretWords(c, loc, [envText], [oldText, content]), async () => {
    enforceComposePolicy(actor, content, { envText, allow: c.allowPrivileged() });
    enforceCompose(content, parseEnv(envText), { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
    c.jobs.checkFree(name);
    await c.store.withCandidate(loc, content, (candidate) => c.compose.validate(candidate, { actor, confirmed: confirm }));
  });
  const snap = c.store.write(loc, { compose: content }, { actor, snapshot: 'compose_edit' });
  c.events.emit({ type: 'stack.compose_edited', actor, source: 'stacks', target: name, status: 'ok', detail: { snapshot: snap.id } });
  return { content: isAdmin(actor) ? content : maskCompose(content, secrets), snapshot: snap.id };
}

function snapshots(c: StackContext, actor: Actor, name: string) {
  requireRole(actor, 'operator', 'the snapshots of an app');
  c.store.locate(name);
  return c.store.snapshots.list(name);
}

/** Returns to a snapshot; the files as they are now are kept as a snapshot first, so this is undoable too. */
function restoreSnapshot(c: StackContext, actor: Actor, name: string, id: string, confirm?: string[]): { restored: string; snapshot: string } {
  requireRole(actor, 'operator', 'restoring a snapshot');
  const loc = c.store.locate(name);
  if (!c.store.snapshots.list(name).some((s) => s.id === id))
    throw new AppError('not_found', `snapshot '${id}' does not exist`, { params: { what: 'snapshot', name: id } });
  // The files a restore brings back are judged like any other write, as the actor: an old snapshot does not bypass the policy.
  const kept = c.store.snapshots.texts(name, id);
  const compose = kept.compose ?? c.store.read(loc, 'compose') ?? '';
  const envText = kept.env ?? c.store.envText(loc);
  const env = parseEnv(envText);
  hidingSecrets(actor, secretWords(c, loc, [c.store.envText(loc), envText], [c.store.read(loc, 'compose') ?? '', compose]), () => {
    enforceComposePolicy(actor, compose, { env, allow: c.allowPrivileged() });
    enforceCompose(compose, env, { app: name, stackDir: loc.dir }, c.binds, { actor, confirm, events: c.events });
  });
  // A job of its own (log, slot, the snapshot recorded before the first write), so a crash mid-restore is rolled back at the next start.
  const { result: before } = c.jobs.runNow({ kind: 'stack.snapshot_restore', stack: name, actor }, (ctx) =>
    // Judged above as this user, so sealed as theirs (a snapshot from before seals existed has none of its own).
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

/**
 * The `.env` and compose editors, for operators and admins. Each save goes through the stack store: a snapshot first
 * (the user can return to it), the file written atomically (`.env` 0600) and sealed, and is audited. Saving does not
 * restart the app. Secrets stay masked for operators: in `.env` the values of the template's secret fields, of names
 * that look secret, of keys marked `# secret` (kept secret from then on) and of values holding a URL password or a
 * secret's value; in the compose file the same values wherever they appear. Only an admin reveals them.
 */
export function createEditors(c: StackContext) {
  return {
    readEnv: (actor: Actor, name: string, reveal = false) => readEnv(c, actor, name, reveal),
    writeEnv: (actor: Actor, name: string, content: string, confirm?: string[]) => writeEnv(c, actor, name, content, confirm),
    readCompose: (actor: Actor, name: string) => readCompose(c, actor, name),
    writeCompose: (actor: Actor, name: string, content: string, confirm?: string[]) => writeCompose(c, actor, name, content, confirm),
    snapshots: (actor: Actor, name: string) => snapshots(c, actor, name),
    restoreSnapshot: (actor: Actor, name: string, id: string, confirm?: string[]) => restoreSnapshot(c, actor, name, id, confirm),
  };
}

import { join } from 'node:path';
import { normalisePath } from '../../../shared/paths.ts';
import { roleAllows } from '../../../shared/roles.ts';
import { requireRole } from '../../core/authorize.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor, EventBus } from '../../core/events.ts';
import type { Compose, ComposeProject, ComposeRunOptions, ComposeVariant } from '../../engine/compose.ts';
import type { BindRules } from '../../settings/bind-rules.ts';
import { composePowers, gatedPowers, powerKey } from '../../templates/compose-powers.ts';
import { hostSources } from '../../templates/compose-sources.ts';
import { enforceCompose, judge } from '../policy/bind-policy.ts';
import { enforceNoLinks, enforceStructure } from '../policy/bind-structure.ts';
import { enforceComposePolicy, enforceEnvKeys, type PrivilegedPolicy } from '../policy/compose-policy.ts';
import { parseEnv } from '../store/env-file.ts';
import { fileKeys, type SealedFiles, type Seals, type SealT } from '../store/file-seal.ts';
import type { FolderIO } from '../store/folder-io.ts';
import { ENV_FILE } from '../store/stack-files.ts';

/** Every compose run names who asks for it: the gate judges the files as that user. */
export type GatedRunOptions = ComposeRunOptions & { actor: Actor };

/** The compose CLI behind the gate: the only way the stacks, backups, updates and path move run compose for an app. */
export interface GatedCompose {
  variant(): Promise<ComposeVariant>;
  up(p: ComposeProject, opts: GatedRunOptions): Promise<void>;
  down(p: ComposeProject, opts: GatedRunOptions & { volumes?: boolean }): Promise<void>;
  start(p: ComposeProject, opts: GatedRunOptions): Promise<void>;
  stop(p: ComposeProject, opts: GatedRunOptions): Promise<void>;
  restart(p: ComposeProject, opts: GatedRunOptions): Promise<void>;
  pull(p: ComposeProject, opts: GatedRunOptions): Promise<void>;
  /**
   * Validates files just written or about to be (not sealed yet): judged like any run, without the seal; `confirmed`
   * are the outside paths an admin confirmed in the request that writes them (audited there).
   */
  validate(p: ComposeProject, opts: { actor: Actor; confirmed?: readonly string[] | undefined }): Promise<void>;
}

export interface GateDeps {
  compose: Compose;
  /** How the gate reads the files it judges: the stack store's (stacks/store/). */
  io: Pick<FolderIO, 'read'>;
  seals: Seals;
  binds: BindRules;
  allowPrivileged: () => PrivilegedPolicy;
  events: EventBus;
  clock: () => Date;
  /**
   * Whether an app's files were there, unsealed, when Kade started (an app from before seals existed): sealed as
   * found the first time they are judged, when they pass the rules no role changes (`sealFromBefore`).
   */
  fromBefore?: (app: string) => boolean;
}

/**
 * Who acts when Kade itself runs compose with no user behind it (a crash recovery at start): an operator, so only
 * what the seal says an admin set up passes, never more.
 */
export const KADE_ITSELF: Actor = { user: 'kade', role: 'operator', ip: '' };

/** Who sealed the files of apps installed before seals existed: what an admin set up then stays approved. */
const BEFORE_SEALS: Actor = { user: 'kade (files as found at the upgrade)', role: 'admin', ip: '' };

/** The engine socket Kade talks to, beside the default places (a bind of it is a power). */
const socketsOf = (d: GateDeps): string[] => (d.binds.engineSocket ? [d.binds.engineSocket] : []);

/** The app a compose project belongs to (an adopted app's project carries another name). */
const appOf = (p: ComposeProject): string => p.stack ?? p.name;

export const filesOf = (p: ComposeProject): SealedFiles => ({ compose: p.file, overrides: p.overrides ?? [], env: join(p.dir, ENV_FILE) });

const refusedFiles = (app: string, reason: 'not_accepted' | 'changed', file: string) =>
  new AppError(
    'stack_files_refused',
    reason === 'changed'
      ? `${file} of '${app}' is not the file Kade wrote: it changed outside Kade. Compose does not run it until an admin accepts the files as they are now (or restores a snapshot)`
      : `the files of '${app}' were never accepted: compose does not run them until an admin accepts them as they are now`,
    { params: { stack: app, reason, file } },
  );

/** A file's text, or '' when it does not exist (an app without `.env`). */
const readTextOrEmpty = (d: GateDeps, path: string): string => d.io.read(path)?.toString('utf8') ?? '';

/** The compose file and `.env` of a project as text, `.env` parsed. */
function textsOf(d: GateDeps, p: ComposeProject) {
  const files = filesOf(p);
  return { files, text: readTextOrEmpty(d, files.compose), dotenv: parseEnv(readTextOrEmpty(d, files.env)) };
}

function judgeNow(d: GateDeps, p: ComposeProject, actor: Actor, seal: SealT | null, confirmed: readonly string[] = []): void {
  const app = appOf(p);
  const files = filesOf(p);
  const dotenv = parseEnv(readTextOrEmpty(d, files.env));
  const shell = d.compose.environment();
  const approved = seal ? { powers: seal.approved.powers, role: seal.approved.role } : undefined;
  const env = { ...dotenv, ...shell };
  for (const file of [files.compose, ...files.overrides]) {
    const text = readTextOrEmpty(d, file);
    enforceComposePolicy(actor, text, {
      env: file === files.compose ? dotenv : {},
      shell,
      allow: d.allowPrivileged(),
      socket: d.binds.engineSocket,
      ...(approved ? { approved } : {}),
    });
    enforceCompose(text, env, { app, stackDir: p.dir }, d.binds, {
      actor,
      events: d.events,
      // What the seal approved, and what an admin confirmed in the request whose files are being validated.
      approved: new Set([...(seal?.approved.outside ?? []), ...(roleAllows(actor.role, 'admin') ? confirmed.map(normalisePath) : [])]),
      files: fileKeys(files).map(([, f]) => f),
    });
  }
}

/** The app's seal; an app from before seals gets one now when its files pass (else its refusal is thrown). */
function sealOf(d: GateDeps, p: ComposeProject): SealT | null {
  const found = d.seals.read(appOf(p));
  if (found || !d.fromBefore?.(appOf(p))) return found;
  const refusal = sealFromBefore(d, p);
  if (refusal) throw refusal;
  return d.seals.read(appOf(p));
}

/**
 * Judges what compose will use for `p` now, as `actor`; throws the refusal. `sealed: false` for files just written
 * and not sealed yet.
 */
function judgeFiles(d: GateDeps, p: ComposeProject, actor: Actor, sealed = true, confirmed: readonly string[] = []): void {
  const app = appOf(p);
  const seal = sealOf(d, p);
  if (sealed) {
    if (!seal) {
      // The specific reason first (a bind of its own folder, a link…), else that nobody accepted the files.
      judgeNow(d, p, actor, null);
      throw refusedFiles(app, 'not_accepted', p.file);
    }
    const changed = d.seals.changed(seal, filesOf(p));
    if (changed) throw refusedFiles(app, 'changed', changed.path);
  }
  judgeNow(d, p, actor, seal, confirmed);
}

/** judgeFiles right before a compose run: a refusal is audited and notified before it is thrown. */
function check(d: GateDeps, p: ComposeProject, actor: Actor, op: string, sealed = true, confirmed: readonly string[] = []): void {
  try {
    judgeFiles(d, p, actor, sealed, confirmed);
  } catch (err) {
    if (err instanceof AppError) refused(d, appOf(p), actor, op, err);
    throw err;
  }
}

function refused(d: GateDeps, app: string, actor: Actor, op: string, err: AppError): void {
  const what = String(err.params.file ?? err.params.path ?? err.params.key ?? err.params.powers ?? '');
  const detail = { op, code: err.code, reason: String(err.params.reason ?? err.code), what };
  d.events.emit({ type: 'stack.files_refused', actor, source: 'stacks', target: app, status: 'failed', detail });
  d.events.emit({
    type: 'notify.security_refusal',
    actor: null,
    source: 'notify',
    target: app,
    status: 'ok',
    // Once per refusal of the same thing against the same seal: a new change after an admin accepted the files is new.
    detail: { message: `Kade refused to run compose ${op} for ${app}: ${err.message}`, round: `${detail.reason}:${what}:${d.seals.read(app)?.at ?? ''}` },
  });
}

/**
 * Records the app's files as Kade's own: their hashes, and what the writer's judgment let through (outside paths,
 * powers) with the writer's role. The stack store (stacks/store/stack-store.ts) calls this right after every write.
 */
function seal(d: GateDeps, p: ComposeProject, actor: Actor): void {
  const { files, text, dotenv } = textsOf(d, p);
  const env = { ...dotenv, ...d.compose.environment() };
  const scope = { app: appOf(p), stackDir: p.dir };
  let outside: string[] = [];
  let powers: string[] = [];
  try {
    outside = hostSources(text, env).flatMap((s) => {
      const j = judge(s, scope, d.binds);
      return j.ok ? [] : [j.path];
    });
    powers = gatedPowers(composePowers(text, env, socketsOf(d))).map(powerKey);
  } catch {
    // A file compose cannot read approves nothing; the next run refuses it with the reason.
  }
  d.seals.write(appOf(p), {
    files: Object.fromEntries(fileKeys(files).map(([key, path]) => [key, d.seals.hash(path)])),
    approved: { outside: roleAllows(actor.role, 'admin') ? outside : [], powers, role: actor.role },
    by: actor.user,
    at: d.clock().toISOString(),
  });
}

/** Compose behind the gate: each run judged right before compose reads the files. */
function gatedCompose(d: GateDeps): GatedCompose {
  const run =
    (op: 'up' | 'start' | 'stop' | 'restart' | 'pull') =>
    async (p: ComposeProject, opts: GatedRunOptions): Promise<void> => {
      check(d, p, opts.actor, op);
      await d.compose[op](p, opts);
    };
  return {
    variant: () => d.compose.variant(),
    up: run('up'),
    start: run('start'),
    stop: run('stop'),
    restart: run('restart'),
    pull: run('pull'),
    async down(p, opts) {
      check(d, p, opts.actor, 'down');
      await d.compose.down(p, opts);
    },
    async validate(p, opts) {
      check(d, p, opts.actor, 'config', false, opts.confirmed);
      await d.compose.validate(p);
    },
  };
}

/** Why compose would not run an app's files now (for the doctor), or null. Judged as an admin: the files, not a role. */
function verdict(d: GateDeps, p: ComposeProject): AppError | null {
  try {
    judgeFiles(d, p, { user: 'doctor', role: 'admin', ip: '' });
    return null;
  } catch (err) {
    return err instanceof AppError ? err : new AppError('internal', String(err));
  }
}

/**
 * The admin's "accept the files as they are now": judged first as that admin (outside paths only with their
 * confirmation, audited), then sealed. Adopted apps and folders edited by hand come back under the gate this way.
 */
function accept(d: GateDeps, p: ComposeProject, actor: Actor, confirm?: readonly string[]): void {
  requireRole(actor, 'admin', "accepting an app's files");
  const { files, text, dotenv } = textsOf(d, p);
  enforceComposePolicy(actor, text, { env: dotenv, shell: d.compose.environment(), allow: d.allowPrivileged(), socket: d.binds.engineSocket });
  enforceCompose(text, { ...dotenv, ...d.compose.environment() }, { app: appOf(p), stackDir: p.dir }, d.binds, {
    actor,
    events: d.events,
    confirm,
    files: fileKeys(files).map(([, f]) => f),
  });
  seal(d, p, actor);
  d.events.emit({ type: 'stack.files_accepted', actor, source: 'stacks', target: appOf(p), status: 'ok' });
}

/**
 * At start, for an app from before seals existed: its files are sealed as they are when they pass the judgment
 * no role changes (YAML hazards, ownership labels, `.env` keys, binds of its own files, nested binds, links);
 * what the old rules let an admin set up stays approved. An app that fails stays unsealed: the doctor lists it
 * and compose does not run it until an admin accepts its files. Returns the refusal, or null.
 */
function sealFromBefore(d: GateDeps, p: ComposeProject): AppError | null {
  if (d.seals.read(appOf(p))) return null;
  const { files, text, dotenv } = textsOf(d, p);
  const env = { ...dotenv, ...d.compose.environment() };
  try {
    enforceEnvKeys(dotenv);
    composePowers(text, env, socketsOf(d));
    const sources = hostSources(text, env);
    const scope = { app: appOf(p), stackDir: p.dir, files: fileKeys(files).map(([, f]) => f) };
    enforceNoLinks(sources, scope, d.binds);
    enforceStructure(sources, scope);
  } catch (err) {
    return err instanceof AppError ? err : new AppError('compose_invalid', `the compose file cannot be read: ${String(err)}`);
  }
  seal(d, p, BEFORE_SEALS);
  return null;
}

/**
 * One gate in front of every compose run for an app. Right before compose reads the files it judges, as the acting
 * user, exactly what compose and the engine will use: the files are byte for byte the ones Kade wrote (the seal), the
 * `.env` sets no compose settings, the compose text interpolated with `.env` and compose's own environment passes the
 * powers policy and the bind policy, and no bind source is or passes through a link. A refusal names the file or
 * value, is audited (`stack.files_refused`) and asks for a notification (`notify.security_refusal`).
 */
export function createComposeGate(d: GateDeps) {
  return {
    compose: gatedCompose(d),
    check: (p: ComposeProject, actor: Actor, op: string, sealed = true, confirmed: readonly string[] = []) => check(d, p, actor, op, sealed, confirmed),
    seal: (p: ComposeProject, actor: Actor) => seal(d, p, actor),
    verdict: (p: ComposeProject) => verdict(d, p),
    accept: (p: ComposeProject, actor: Actor, confirm?: readonly string[]) => accept(d, p, actor, confirm),
    sealFromBefore: (p: ComposeProject) => sealFromBefore(d, p),
  };
}

export type ComposeGate = ReturnType<typeof createComposeGate>;

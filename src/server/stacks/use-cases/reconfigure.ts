import { parse } from 'yaml';
import type { JobT } from '../../../shared/api.ts';
import { normalisePath } from '../../../shared/paths.ts';
import type { ReconfigureRequestT, SnapshotT } from '../../../shared/stack-config.ts';
import type { FieldValue } from '../../../shared/template.ts';
import { requireRole } from '../../core/authorize.ts';
import { AppError, errorMessage, isAppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { failpoint } from '../../core/failpoint.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import type { JobContext } from '../../jobs/jobs.service.ts';
import type { HostSource } from '../../templates/compose-sources.ts';
import { renderTemplate } from '../../templates/render.ts';
import { resolveValues, toggleId } from '../../templates/values.ts';
import { stringifyCompose } from '../../templates/yaml-out.ts';
import { enforceCompose, pathFieldOf } from '../policy/bind-policy.ts';
import { enforceComposePolicy } from '../policy/compose-policy.ts';
import { appDataValues } from '../store/app-data.ts';
import { type EnvDialect, mergeEnv, parseEnv } from '../store/env-file.ts';
import type { StackLocation } from '../store/stack-dir.ts';
import type { StackMetaT } from '../store/stack-files.ts';
import { config, secretsFromEnv, sourceTemplate, templateFields, typedValues } from './app-config.ts';
import { applyChoices, checkChoices } from './choices.ts';
import { applyDatabasePasswordChanges, changeDatabasePassword, changedDatabasePasswords, type DbPasswordChange } from './db-password.ts';
import { secretValues, templateMeta } from './install.ts';
import type { BackupForChange, StackContext } from './stack-context.ts';

type Doc = Record<string, unknown>;

/** The backup a reconfigure made first (stack-context.ts, BackupForChange). */
type ChangeBackup = Awaited<ReturnType<BackupForChange['make']>>;

/** What the audit entry of a reconfigure names: the snapshot and the backup taken before it. */
const detailOf = (snapshot: SnapshotT | undefined, backup: ChangeBackup | null) => ({ snapshot: snapshot?.id ?? '', backup: backup?.id ?? '' });

/** The extra folder or device of the form a refused host source came from, for the form to mark that field. */
function extraFieldOf(services: StackMetaT['services'], s: HostSource): string | null {
  const m = /^services\.([^.]+)\.(volumes|devices)\./.exec(s.where);
  const choice = m?.[1] ? services[m[1]] : undefined;
  if (!m || !choice) return null;
  const path = normalisePath(s.path);
  if (m[2] === 'volumes') {
    const i = (choice.volumes ?? []).findIndex((v) => normalisePath(v.host) === path);
    return i >= 0 ? `services.${m[1]}.volumes.${i}.host` : null;
  }
  const i = (choice.devices ?? []).findIndex((d) => normalisePath(d) === path);
  return i >= 0 ? `services.${m[1]}.devices.${i}` : null;
}

interface Prepared {
  loc: StackLocation;
  project: ComposeProject;
  composeText: string;
  /** The new `.env` text in the dialect of the compose variant that will read it. */
  envText: (dialect: EnvDialect) => string;
  metaText: string;
  oldDoc: Doc;
  newDoc: Doc;
  oldEnv: Record<string, string>;
  newEnv: Record<string, string>;
  secrets: string[];
}

/** The service choices kept in `.svc.json` with those the form sent applied (a choice left out is kept). */
function mergeServiceChoices(kept: StackMetaT['services'], sent: ReconfigureRequestT['services'], rendered: Set<string>): StackMetaT['services'] {
  const services = { ...kept };
  for (const [svc, choice] of Object.entries(sent ?? {})) {
    if (!rendered.has(svc)) throw new AppError('validation', `the app has no service '${svc}'`, { params: { service: svc }, fields: [`services.${svc}`] });
    const checked = checkChoices({ [svc]: choice })[svc] ?? {};
    const prev = services[svc] ?? {};
    services[svc] = {
      ...prev,
      tag: choice.tag === undefined ? prev.tag : (checked.tag ?? undefined),
      volumes: choice.volumes === undefined ? prev.volumes : checked.volumes,
      devices: choice.devices === undefined ? prev.devices : checked.devices,
    };
    for (const k of ['tag', 'volumes', 'devices'] as const) if (services[svc][k] === undefined) delete services[svc][k];
  }
  return services;
}

/** Everything is resolved, rendered and checked before the job: bad input is refused with nothing written. */
function prepare(c: StackContext, actor: Actor, name: string, req: ReconfigureRequestT): Prepared {
  const loc = c.store.locate(name);
  const meta = c.store.meta(loc);
  const found = sourceTemplate(c, loc, meta);
  if (typeof found !== 'object' || !meta) {
    const why = found === 'adopted' ? 'it was adopted: edit its files instead' : `its template is not in the store (${String(found)})`;
    throw new AppError('conflict', `app '${name}' cannot be reconfigured: ${why}`, { params: { stack: name, reason: String(found) } });
  }
  const { template } = found;
  const oldEnvText = c.store.envText(loc);
  const oldEnv = parseEnv(oldEnvText);
  // Stored values, then the secrets from .env, then what the form sent: a secret left out is kept.
  // A data folder sent empty (or as the DATA_DIR root) is the app's own DATA_DIR/<name>; stored values stay as they are.
  const sent = appDataValues(template, req.values, { dataDir: c.binds.dataDir, name, keepAbsent: true });
  const input: Record<string, FieldValue> = { ...typedValues(meta), ...secretsFromEnv(meta, oldEnv), ...sent };
  for (const g of template.groups) if (g.toggle && !Object.hasOwn(input, toggleId(g.id))) input[toggleId(g.id)] = g.toggle_default;
  const values = resolveValues(template, input, c.prefill);
  const render = renderTemplate({ template, compose: found.compose, values, timezone: c.timezone() });

  const doc = parse(render.compose) as Doc;
  const services = mergeServiceChoices(meta.services, req.services, new Set(Object.keys((doc.services as Doc | undefined) ?? {})));
  applyChoices(doc, { services, networks: meta.networks, subnets: meta.subnets });

  const newMeta: StackMetaT = {
    ...meta,
    ...templateMeta(template, values, render),
    source: { ...meta.source, repo: meta.source?.repo ?? '', app: meta.source?.app ?? '', commit: found.commit },
    services,
  };
  const managed = new Set(Object.values(meta.secret_env));
  const envText = (dialect: EnvDialect) => mergeEnv(oldEnvText, render.env, managed, dialect);
  // Kade's reader reads either dialect back to the same values.
  const newEnv = parseEnv(envText('v2'));
  const composeText = stringifyCompose(doc);
  const byField = pathFieldOf(template, values);
  enforceCompose(composeText, newEnv, { app: name, stackDir: loc.dir }, c.binds, {
    actor,
    confirm: req.confirm_outside_paths,
    events: c.events,
    fieldOf: (s) => extraFieldOf(services, s) ?? byField(s),
  });
  const oldSecrets = Object.values(secretsFromEnv(meta, oldEnv));
  return {
    loc,
    project: c.store.plannedProject(loc),
    composeText,
    envText,
    metaText: `${JSON.stringify(newMeta, null, 2)}\n`,
    oldDoc: c.store.composeDoc(loc),
    newDoc: doc,
    oldEnv,
    newEnv,
    secrets: [...secretValues(template, values), ...oldSecrets],
  };
}

/** The running container of each service of the app, by compose labels. */
async function runningContainers(c: StackContext, project: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const ct of await c.engine.listContainers({ project })) if (ct.service && ct.state === 'running') out[ct.service] = ct.id;
  return out;
}

/** Database passwords changed inside the running databases. */
interface ChangedPasswords {
  containers: Record<string, string>;
  changes: DbPasswordChange[];
}

/** What a reconfigure job has done so far: what its failure undoes. */
interface Done {
  snapshot?: SnapshotT;
  changed: ChangedPasswords | null;
  /** `up -d` of the new files ran. */
  restarted: boolean;
  /** A database may have changed: a password inside it, or a new version started on it. */
  touched: boolean;
}

/**
 * A backup first (SPEC flows: reconfigure, "always: backup made"); without one nothing changes: the job fails
 * before its first write, naming why. Its id is recorded, so a crash after it can load its dumps (recovery.ts).
 */
async function backupFirst(c: StackContext, name: string, ctx: JobContext, actor: Actor): Promise<ChangeBackup | null> {
  if (!c.backups) return null;
  try {
    const b = await c.backups.make(name, 'reconfigure', { ...ctx, progress: (v) => ctx.progress(v * 0.2) }, actor);
    ctx.record({ backup: b.id });
    return b;
  } catch (err) {
    ctx.log(`no backup could be made (${errorMessage(err)}): the reconfigure stops before it changes anything`);
    c.events.emit({ type: 'stack.reconfigured', actor, source: 'stacks', target: name, status: 'failed', detail: { snapshot: '', backup: '' } });
    throw new AppError(
      isAppError(err) ? err.code : 'internal',
      `no backup could be made before the reconfigure, so nothing was changed: ${errorMessage(err)}`,
      {
        params: isAppError(err) ? err.params : {},
        cause: err,
      },
    );
  }
}

/**
 * Snapshot; write the re-rendered files; validate; change database passwords inside the running databases; restart.
 * `done` says how far it came, for the rollback.
 */
async function applyChange(c: StackContext, p: Prepared, dialect: EnvDialect, ctx: JobContext, actor: Actor, done: Done): Promise<void> {
  // All three or none: a full disk fails while writing the temp files, before any file is replaced.
  c.store.write(
    p.loc,
    { compose: p.composeText, env: p.envText(dialect), meta: p.metaText },
    {
      actor,
      snapshot: 'reconfigure',
      beforeWrite: (s) => {
        if (!s) return;
        done.snapshot = s;
        ctx.log(`snapshot ${s.id} taken of ${s.files.join(', ')}`);
        // Recorded before the first write: after a crash the recovery rolls back to exactly this snapshot (recovery.ts).
        ctx.record({ snapshot: s.id, phase: 'files' });
        failpoint('reconfigure.snapshot');
      },
      afterRename: () => failpoint('reconfigure.file'),
    },
  );
  ctx.log('wrote the re-rendered compose file, .env and metadata');
  ctx.progress(0.25);
  await c.compose.validate(p.project, { actor });
  ctx.log('compose file is valid');
  ctx.progress(0.3);
  const changes = changedDatabasePasswords(p.oldDoc, p.newDoc, p.oldEnv, p.newEnv);
  if (changes.length > 0) {
    ctx.record({ phase: 'passwords' });
    done.touched = true;
    const containers = await runningContainers(c, p.project.name);
    await applyDatabasePasswordChanges(c.engine, containers, changes);
    done.changed = { containers, changes };
    for (const ch of changes) ctx.log(`changed the password of '${ch.user}' inside the running '${ch.secret.service}' database`);
  }
  ctx.progress(0.4);
  // From here a new version may migrate its database: a crash loads the backup's dumps too (recovery.ts).
  ctx.record({ phase: 'up' });
  failpoint('reconfigure.up');
  done.restarted = true;
  done.touched = true;
  await c.up(p.project, ctx, actor);
}

/** Changed database passwords set back inside the running databases; a failure is logged. */
async function setBack(c: StackContext, project: string, changed: ChangedPasswords, ctx: { log(t: string): void }): Promise<void> {
  // `up -d` may have recreated a database's container (its environment changed with the password): the one running now.
  const now = await runningContainers(c, project).catch(() => ({}) as Record<string, string>);
  for (const ch of [...changed.changes].reverse()) {
    const id = now[ch.secret.service] ?? changed.containers[ch.secret.service];
    if (!id) continue;
    await changeDatabasePassword(c.engine, id, { ...ch, oldPassword: ch.newPassword, newPassword: ch.oldPassword }).then(
      () => ctx.log(`set the password of '${ch.user}' in '${ch.secret.service}' back`),
      (e: unknown) => ctx.log(`setting the password of '${ch.user}' in '${ch.secret.service}' back failed: ${errorMessage(e)}`),
    );
  }
}

/**
 * The databases as the backup holds them, after a failure that came once they may have changed (a password changed
 * inside them, `up -d` of a new version that may migrate): their dumps loaded into the running databases; the
 * app's data folder is left as it is. A failure here is logged: the backup still holds them.
 */
async function putDatabasesBack(c: StackContext, backup: ChangeBackup, ctx: JobContext): Promise<void> {
  if (!c.backups || backup.databases.length === 0) return;
  ctx.log(`the change may have touched the databases: loading their dumps from backup ${backup.id} (the data folder stays as it is)`);
  try {
    await c.backups.loadDumps(backup.id, ctx);
  } catch (err) {
    ctx.log(`putting the databases back from backup ${backup.id} failed: ${errorMessage(err)}; that backup holds them as they were: restore it from Backups`);
  }
}

/**
 * Any failure sets changed passwords back, restores the snapshot byte for byte, starts the previous configuration
 * when the new one was started, and once a database may have changed, loads the backup's dumps into it.
 */
async function rollBack(c: StackContext, p: Prepared, done: Done, backup: ChangeBackup | null, ctx: JobContext, actor: Actor): Promise<void> {
  if (done.changed) await setBack(c, p.project.name, done.changed, ctx);
  if (done.snapshot) {
    c.store.restore(p.loc, done.snapshot.id);
    ctx.log(`restored snapshot ${done.snapshot.id}: the files are as they were`);
  }
  if (done.restarted)
    await c.compose
      .up(p.project, { onOutput: (t) => ctx.log(t), actor })
      .catch((e: unknown) => ctx.log(`starting the previous configuration failed: ${errorMessage(e)}`));
  if (done.touched && backup) await putDatabasesBack(c, backup, ctx);
}

/**
 * Backup first; snapshot; write the re-rendered files; validate; change database passwords inside the running
 * databases; restart. Any failure is rolled back (rollBack).
 */
function reconfigure(c: StackContext, actor: Actor, name: string, req: ReconfigureRequestT): JobT {
  requireRole(actor, 'operator', 'reconfigure');
  const p = prepare(c, actor, name, req);
  enforceComposePolicy(actor, p.composeText, { env: p.newEnv, allow: c.allowPrivileged() });
  return c.jobs.start({ kind: 'stack.reconfigure', stack: name, actor }, async (ctx) => {
    for (const s of p.secrets) ctx.mask(s);
    const backup = await backupFirst(c, name, ctx, actor);
    const dialect = await c.compose.variant();
    const done: Done = { changed: null, restarted: false, touched: false };
    try {
      await applyChange(c, p, dialect, ctx, actor, done);
    } catch (err) {
      ctx.log(`reconfigure failed: ${errorMessage(err)}`);
      await rollBack(c, p, done, backup, ctx, actor);
      c.events.emit({ type: 'stack.reconfigured', actor, source: 'stacks', target: name, status: 'failed', detail: detailOf(done.snapshot, backup) });
      throw err;
    }
    // The event feeds the audit log; a failing audit write is logged by the bus and never undoes the change.
    c.events.emit({ type: 'stack.reconfigured', actor, source: 'stacks', target: name, status: 'ok', detail: detailOf(done.snapshot, backup) });
  });
}

/** Reconfigure: reopen the form of an installed app and apply changed values and extras (SPEC flows table). */
export function createReconfigure(c: StackContext) {
  return {
    config: (actor: Actor, name: string) => config(c, actor, name),
    reconfigure: (actor: Actor, name: string, req: ReconfigureRequestT) => reconfigure(c, actor, name, req),
    /** Form fields of the app's template, for the credentials panel; empty when there is none. */
    templateFields: (loc: StackLocation) => templateFields(c, loc),
    /** The template an app was installed from, or why there is none. */
    sourceTemplate: (loc: StackLocation, meta: StackMetaT | null) => sourceTemplate(c, loc, meta),
  };
}

export type Reconfigure = ReturnType<typeof createReconfigure>;

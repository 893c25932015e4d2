import { parse } from 'yaml';
import type { JobT } from '../../../shared/api.ts';
import { normalisePath } from '../../../shared/paths.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { ReconfigureRequestT, SnapshotT, StackConfigT } from '../../../shared/stack-config.ts';
import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { repoCacheStatus } from '../../catalogue/repo-cache-status.ts';
import { requireRole } from '../../core/authorize.ts';
import { AppError, errorMessage, isAppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { failpoint } from '../../core/failpoint.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import type { JobContext } from '../../jobs/jobs.service.ts';
import type { HostSource } from '../../templates/compose-sources.ts';
import { allFields, renderTemplate } from '../../templates/render.ts';
import { resolveValues, toggleId } from '../../templates/values.ts';
import { stringifyCompose } from '../../templates/yaml-out.ts';
import { enforceCompose, pathFieldOf } from '../policy/bind-policy.ts';
import { enforceComposePolicy } from '../policy/compose-policy.ts';
import { appDataValues } from '../store/app-data.ts';
import { type EnvDialect, mergeEnv, parseEnv } from '../store/env-file.ts';
import type { StackLocation } from '../store/stack-dir.ts';
import type { StackMetaT } from '../store/stack-files.ts';
import { applyChoices, checkChoices, serviceJoins } from './choices.ts';
import { applyDatabasePasswordChanges, changeDatabasePassword, changedDatabasePasswords, type DbPasswordChange } from './db-password.ts';
import { secretValues, templateMeta } from './install.ts';
import type { BackupForChange, StackContext } from './stack-context.ts';

type Doc = Record<string, unknown>;

/** The backup a reconfigure made first (stack-context.ts, BackupForChange). */
type ChangeBackup = Awaited<ReturnType<BackupForChange['make']>>;

/** What the audit entry of a reconfigure names: the snapshot and the backup taken before it. */
const detailOf = (snapshot: SnapshotT | undefined, backup: ChangeBackup | null) => ({ snapshot: snapshot?.id ?? '', backup: backup?.id ?? '' });

/** Stored values back in the types they were entered in (`value_types`), so the form shows them as typed. */
function typedValues(meta: StackMetaT): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(meta.values)) {
    const type = meta.value_types[k];
    out[k] = type === 'number' ? Number(v) : type === 'boolean' ? v === true || v === 'true' : v;
  }
  return out;
}

/** Secret form values read back from `.env` through the map in `.svc.json`. */
function secretsFromEnv(meta: StackMetaT, env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, key] of Object.entries(meta.secret_env)) if (Object.hasOwn(env, key)) out[field] = env[key] as string;
  return out;
}

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

/** Reconfigure: reopen the form of an installed app and apply changed values and extras (SPEC flows table). */
export function createReconfigure(c: StackContext) {
  /** The template an app was installed from, or why there is none. */
  function sourceTemplate(
    loc: StackLocation,
    meta: StackMetaT | null,
  ): { template: TemplateFileT; compose: string; commit: string | null } | NonNullable<StackConfigT['schema_missing']> {
    if (loc.adopted) return 'adopted';
    if (!meta?.source) return 'app_missing';
    const { repo, app } = meta.source;
    if (!c.catalogue.list().some((r) => r.id === repo)) return 'repo_missing';
    try {
      const loaded = c.catalogue.loadApp(repo, app);
      return { template: loaded.template, compose: loaded.compose, commit: loaded.repo.commit };
    } catch (err) {
      if (isAppError(err) && err.code === 'not_found') return 'app_missing';
      throw err;
    }
  }

  function config(actor: Actor, name: string): StackConfigT {
    requireRole(actor, 'operator', 'the configuration of an app');
    const loc = c.store.locate(name);
    const meta = c.store.meta(loc);
    const doc = c.store.composeDoc(loc);
    const found = sourceTemplate(loc, meta);
    const admin = roleAllows(actor.role, 'admin');
    const secrets = meta ? secretsFromEnv(meta, parseEnv(c.store.envText(loc))) : {};
    const services = (doc.services && typeof doc.services === 'object' ? Object.entries(doc.services as Doc) : []).map(([svc, def]) => {
      const image = def && typeof def === 'object' && typeof (def as Doc).image === 'string' ? ((def as Doc).image as string) : null;
      const choice = meta?.services[svc] ?? {};
      return {
        name: svc,
        image,
        tag: choice.tag ?? null,
        volumes: choice.volumes ?? [],
        devices: choice.devices ?? [],
        shared_network: meta ? Object.keys(serviceJoins(meta, svc)).length > 0 : false,
        networks: meta ? Object.entries(serviceJoins(meta, svc)).map(([network, j]) => ({ network, ip: j.ip ?? null })) : [],
      };
    });
    const repo = meta?.source ? c.catalogue.list().find((r) => r.id === meta.source?.repo) : undefined;
    return {
      name,
      adopted: loc.adopted,
      source: meta?.source ? { repo: meta.source.repo, app: meta.source.app } : null,
      schema: typeof found === 'object' && meta?.source ? { repo: meta.source.repo, app: meta.source.app, template: found.template } : null,
      schema_missing: typeof found === 'object' ? null : found,
      values: { ...(meta ? typedValues(meta) : {}), ...(admin ? secrets : {}) },
      secrets_hidden: admin ? [] : Object.keys(secrets),
      template_version: meta?.template_version ?? null,
      repo_status: repo ? repoCacheStatus(repo) : null,
      services,
      networks: meta?.networks ?? [],
    };
  }

  /** Everything is resolved, rendered and checked before the job: bad input is refused with nothing written. */
  function prepare(actor: Actor, name: string, req: ReconfigureRequestT): Prepared {
    const loc = c.store.locate(name);
    const meta = c.store.meta(loc);
    const found = sourceTemplate(loc, meta);
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
    const rendered = new Set(Object.keys((doc.services as Doc | undefined) ?? {}));
    const services = { ...meta.services };
    for (const [svc, choice] of Object.entries(req.services ?? {})) {
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
  async function runningContainers(project: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const ct of await c.engine.listContainers({ project })) if (ct.service && ct.state === 'running') out[ct.service] = ct.id;
    return out;
  }

  /**
   * A backup first (SPEC flows: reconfigure, "always: backup made"); without one nothing changes: the job fails
   * before its first write, naming why. Its id is recorded, so a crash after it can load its dumps (recovery.ts).
   */
  async function backupFirst(name: string, ctx: JobContext, actor: Actor): Promise<ChangeBackup | null> {
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
   * The databases as the backup holds them, after a failure that came once they may have changed (a password changed
   * inside them, `up -d` of a new version that may migrate): their dumps loaded into the running databases; the
   * app's data folder is left as it is. A failure here is logged: the backup still holds them.
   */
  async function putDatabasesBack(backup: ChangeBackup, ctx: JobContext): Promise<void> {
    if (!c.backups || backup.databases.length === 0) return;
    ctx.log(`the change may have touched the databases: loading their dumps from backup ${backup.id} (the data folder stays as it is)`);
    try {
      await c.backups.loadDumps(backup.id, ctx);
    } catch (err) {
      ctx.log(`putting the databases back from backup ${backup.id} failed: ${errorMessage(err)}; that backup holds them as they were: restore it from Backups`);
    }
  }

  /**
   * Backup first; snapshot; write the re-rendered files; validate; change database passwords inside the running
   * databases; restart. Any failure sets changed passwords back, restores the snapshot byte for byte, and once a
   * database may have changed, loads the backup's dumps into it.
   */
  function reconfigure(actor: Actor, name: string, req: ReconfigureRequestT): JobT {
    requireRole(actor, 'operator', 'reconfigure');
    const p = prepare(actor, name, req);
    enforceComposePolicy(actor, p.composeText, { env: p.newEnv, allow: c.allowPrivileged() });
    return c.jobs.start({ kind: 'stack.reconfigure', stack: name, actor }, async (ctx) => {
      for (const s of p.secrets) ctx.mask(s);
      const backup = await backupFirst(name, ctx, actor);
      const dialect = await c.compose.variant();
      const taken: { snapshot?: SnapshotT } = {};
      let changed: { containers: Record<string, string>; changes: DbPasswordChange[] } | null = null;
      let restarted = false;
      let touched = false;
      try {
        // All three or none: a full disk fails while writing the temp files, before any file is replaced.
        c.store.write(
          p.loc,
          { compose: p.composeText, env: p.envText(dialect), meta: p.metaText },
          {
            actor,
            snapshot: 'reconfigure',
            beforeWrite: (s) => {
              if (!s) return;
              taken.snapshot = s;
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
          touched = true;
          const containers = await runningContainers(p.project.name);
          await applyDatabasePasswordChanges(c.engine, containers, changes);
          changed = { containers, changes };
          for (const ch of changes) ctx.log(`changed the password of '${ch.user}' inside the running '${ch.secret.service}' database`);
        }
        ctx.progress(0.4);
        // From here a new version may migrate its database: a crash loads the backup's dumps too (recovery.ts).
        ctx.record({ phase: 'up' });
        failpoint('reconfigure.up');
        restarted = true;
        touched = true;
        await c.up(p.project, ctx, actor);
      } catch (err) {
        ctx.log(`reconfigure failed: ${errorMessage(err)}`);
        if (changed) await setBack(p.project.name, changed, ctx);
        if (taken.snapshot) {
          c.store.restore(p.loc, taken.snapshot.id);
          ctx.log(`restored snapshot ${taken.snapshot.id}: the files are as they were`);
        }
        if (restarted)
          await c.compose
            .up(p.project, { onOutput: (t) => ctx.log(t), actor })
            .catch((e: unknown) => ctx.log(`starting the previous configuration failed: ${errorMessage(e)}`));
        if (touched && backup) await putDatabasesBack(backup, ctx);
        c.events.emit({ type: 'stack.reconfigured', actor, source: 'stacks', target: name, status: 'failed', detail: detailOf(taken.snapshot, backup) });
        throw err;
      }
      // The event feeds the audit log; a failing audit write is logged by the bus and never undoes the change.
      c.events.emit({ type: 'stack.reconfigured', actor, source: 'stacks', target: name, status: 'ok', detail: detailOf(taken.snapshot, backup) });
    });
  }

  async function setBack(
    project: string,
    changed: { containers: Record<string, string>; changes: DbPasswordChange[] },
    ctx: { log(t: string): void },
  ): Promise<void> {
    // `up -d` may have recreated a database's container (its environment changed with the password): the one running now.
    const now = await runningContainers(project).catch(() => ({}) as Record<string, string>);
    for (const ch of [...changed.changes].reverse()) {
      const id = now[ch.secret.service] ?? changed.containers[ch.secret.service];
      if (!id) continue;
      await changeDatabasePassword(c.engine, id, { ...ch, oldPassword: ch.newPassword, newPassword: ch.oldPassword }).then(
        () => ctx.log(`set the password of '${ch.user}' in '${ch.secret.service}' back`),
        (e: unknown) => ctx.log(`setting the password of '${ch.user}' in '${ch.secret.service}' back failed: ${errorMessage(e)}`),
      );
    }
  }

  /** Form fields of the app's template, for the credentials panel; empty when there is none. */
  function templateFields(loc: StackLocation) {
    const found = sourceTemplate(loc, c.store.meta(loc));
    return typeof found === 'object' ? allFields(found.template) : [];
  }

  return { config, reconfigure, templateFields, sourceTemplate };
}

export type Reconfigure = ReturnType<typeof createReconfigure>;

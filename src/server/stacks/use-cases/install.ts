import { join } from 'node:path';
import { parse } from 'yaml';
import type { JobT } from '../../../shared/api.ts';
import { englishText, type FieldValue, type TemplateFileT } from '../../../shared/template.ts';
import { categoriesOf } from '../../catalogue/derive-categories.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { failpoint } from '../../core/failpoint.ts';
import type { JobContext } from '../../jobs/jobs.service.ts';
import type { SubnetPool } from '../../networks/subnet-pool.ts';
import { describePowers, gatedPowers } from '../../templates/compose-powers.ts';
import { allFields, type RenderOutput, renderTemplate } from '../../templates/render.ts';
import { type PrefillContext, resolveValues } from '../../templates/values.ts';
import { stringifyCompose } from '../../templates/yaml-out.ts';
import { enforceCompose, pathFieldOf } from '../policy/bind-policy.ts';
import { enforceComposePolicy, type PowerUse } from '../policy/compose-policy.ts';
import { appDataValues } from '../store/app-data.ts';
import { type EnvDialect, mergeEnv, parseEnv } from '../store/env-file.ts';
import { checkName } from '../store/stack-dir.ts';
import type { StackMetaT } from '../store/stack-files.ts';
import { applySubnets, projectNetworks } from './choices.ts';
import type { StackContext } from './stack-context.ts';

export interface PreparedInstall {
  name: string;
  render: RenderOutput;
  meta: StackMetaT;
  secrets: string[];
  /** The resolved form values the template was rendered with. */
  values: Record<string, FieldValue>;
  /** The app's other files by path below its folder (an imported store's inline configs). */
  files: Record<string, string>;
}

/** Resolves and renders everything before any directory exists, so bad input leaves nothing behind. */
export function prepareInstall(input: {
  name: string;
  source: { repo: string; app: string; commit: string | null };
  template: TemplateFileT;
  compose: string;
  /** Files the app's folder gets beside its compose file, as the catalogue gives them. */
  files?: Record<string, string>;
  values: Record<string, FieldValue>;
  prefill: PrefillContext;
  timezone: string;
  now: Date;
}): PreparedInstall {
  const { template } = input;
  const values = resolveValues(template, input.values, { ...input.prefill, name: input.name });
  const render = renderTemplate({ template, compose: input.compose, values, timezone: input.timezone });
  const meta: StackMetaT = {
    ...templateMeta(template, values, render),
    format: 1,
    source: input.source,
    services: {},
    networks: [],
    installed_at: input.now.toISOString(),
  };
  return { name: input.name, render, meta, secrets: secretValues(template, values), values, files: input.files ?? {} };
}

/** The parts of `.svc.json` that follow from the template and the form values; never a secret. */
export function templateMeta(template: TemplateFileT, values: Record<string, FieldValue>, render: RenderOutput) {
  const secretIds = new Set(
    allFields(template)
      .filter((f) => f.secret)
      .map((f) => f.id),
  );
  const publicValues: Record<string, FieldValue> = {};
  const types: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) {
    types[k] = typeof v;
    if (!secretIds.has(k)) publicValues[k] = v;
  }
  const web = template.web;
  const webPort = web ? (web.port_field ? Number(values[web.port_field]) : (web.port ?? NaN)) : NaN;
  return {
    values: publicValues,
    value_types: types,
    secret_env: render.secretEnv,
    web: web && Number.isInteger(webPort) ? { scheme: web.scheme, port: webPort, path: web.path } : null,
    categories: categoriesOf(template.metadata.categories, template.tags, englishText(template.description)),
    template_version: template.version,
  };
}

/** The secret values of a form, for masking them in job logs. */
export const secretValues = (template: TemplateFileT, values: Record<string, FieldValue>): string[] =>
  allFields(template)
    .filter((f) => f.secret)
    .map((f) => String(values[f.id] ?? ''))
    .filter((s) => s.length > 0);

/** The texts of a new app's files: its three and any others (the stack store writes them: stacks/store/stack-store.ts `create`). */
export const installFiles = (p: PreparedInstall, dialect: EnvDialect): { compose: string; env: string; meta: string; extra: Record<string, string> } => ({
  compose: p.render.compose,
  env: mergeEnv('', p.render.env, new Set(), dialect),
  meta: `${JSON.stringify(p.meta, null, 2)}\n`,
  extra: p.files,
});

/** What an install asks for: the app of a repo, its name and the form's values. */
export interface InstallRequest {
  repo: string;
  app: string;
  name: string;
  values: Record<string, FieldValue>;
  confirm_outside_paths?: string[] | undefined;
}

const nameTaken = (name: string, field: boolean) =>
  new AppError('name_taken', `an app named '${name}' exists already`, { params: { name }, ...(field ? { fields: ['name'] } : {}) });

/** Each network of the app's compose project gets a block of Kade's own pool (subnet-pool.ts), kept in `.svc.json`. */
async function planSubnets(subnets: SubnetPool | undefined, name: string, prepared: PreparedInstall): Promise<PreparedInstall> {
  if (!subnets) return prepared;
  const doc = parse(prepared.render.compose) as Record<string, unknown>;
  const wanted = projectNetworks(doc);
  if (wanted.length === 0) return prepared;
  subnets.release(name);
  const planned = await subnets.allocate(name, wanted);
  applySubnets(doc, planned);
  return { ...prepared, render: { ...prepared.render, compose: stringifyCompose(doc) }, meta: { ...prepared.meta, subnets: planned } };
}

/** The template loaded and rendered with the form's values, and judged as the actor before any job starts. */
function prepareJudged(c: StackContext, actor: Actor, req: InstallRequest): PreparedInstall {
  checkName(req.name);
  if (c.store.taken(req.name)) throw nameTaken(req.name, true);
  const loaded = c.catalogue.loadApp(req.repo, req.app);
  const prepared = prepareInstall({
    name: req.name,
    source: { repo: req.repo, app: req.app, commit: loaded.repo.commit },
    template: loaded.template,
    compose: loaded.compose,
    files: loaded.files,
    values: appDataValues(loaded.template, req.values, { dataDir: c.prefill.dataDir, name: req.name }),
    prefill: c.prefill,
    timezone: c.timezone(),
    now: c.clock(),
  });
  const uses = enforceComposePolicy(actor, prepared.render.compose, { env: prepared.render.env, allow: c.allowPrivileged(), socket: c.binds.engineSocket });
  enforceCompose(prepared.render.compose, prepared.render.env, { app: req.name, stackDir: join(c.binds.libraryDir, req.name) }, c.binds, {
    actor,
    confirm: req.confirm_outside_paths,
    events: c.events,
    fieldOf: pathFieldOf(loaded.template, prepared.values),
  });
  auditPowers(c, actor, req.name, uses);
  return prepared;
}

/** The powers over the host an install hands the app, named in the audit log beside who allowed them. */
function auditPowers(c: StackContext, actor: Actor, name: string, uses: PowerUse[]): void {
  const gated = gatedPowers(uses);
  if (gated.length === 0) return;
  const services = [...new Set(gated.map((u) => u.service))].join(', ');
  c.events.emit({ type: 'stack.powers_allowed', actor, source: 'stacks', target: name, status: 'ok', detail: { powers: describePowers(gated), services } });
}

/** The install job's work: the folder written and sealed, the files validated, the containers started. */
async function installJob(c: StackContext, subnets: SubnetPool | undefined, actor: Actor, req: InstallRequest, prepared: PreparedInstall, ctx: JobContext) {
  for (const s of prepared.secrets) ctx.mask(s);
  ctx.log(`installing ${req.repo}/${req.app} as '${req.name}'`);
  if (c.store.taken(req.name)) throw nameTaken(req.name, false);
  const detail = { repo: req.repo, app: req.app };
  try {
    const withSubnets = await planSubnets(subnets, req.name, prepared);
    const planned = Object.entries(withSubnets.meta.subnets ?? {});
    if (planned.length > 0) ctx.log(`networks of the app: ${planned.map(([n, s]) => `${n} ${s}`).join(', ')}`);
    // Written into a temp folder, renamed into place and sealed as this user's (judged above).
    const loc = c.store.create(req.name, installFiles(withSubnets, await c.compose.variant()), actor);
    ctx.log(`wrote ${loc.dir}`);
    const p = c.store.project(loc);
    failpoint('install.folder');
    ctx.progress(0.2);
    await c.compose.validate(p, { actor });
    await c.up(p, ctx, actor);
    c.events.emit({ type: 'stack.installed', actor, source: 'store', target: req.name, status: 'ok', detail });
  } catch (err) {
    c.events.emit({ type: 'stack.installed', actor, source: 'store', target: req.name, status: 'failed', detail });
    throw err;
  }
}

/** Install an app of a repo under a name (POST /api/stacks): judged before the job, written and started inside it. */
export function createInstall(c: StackContext, o: { subnets?: SubnetPool | undefined }) {
  return function install(actor: Actor, req: InstallRequest): JobT {
    const prepared = prepareJudged(c, actor, req);
    return c.jobs.start({ kind: 'stack.install', stack: req.name, actor }, (ctx) => installJob(c, o.subnets, actor, req, prepared, ctx));
  };
}

/**
 * The policies of an install on an app's files that come from elsewhere (a backup being restored), judged as the
 * actor: an old archive brings back no power or host folder the actor could not install today.
 */
export function judgeFiles(c: StackContext, actor: Actor, name: string, files: { compose: string; env: string }, confirm?: readonly string[]): void {
  const env = parseEnv(files.env);
  enforceComposePolicy(actor, files.compose, { env, allow: c.allowPrivileged() });
  enforceCompose(files.compose, env, { app: name, stackDir: join(c.binds.libraryDir, name) }, c.binds, { actor, confirm, events: c.events });
}

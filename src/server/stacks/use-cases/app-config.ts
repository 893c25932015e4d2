import { roleAllows } from '../../../shared/roles.ts';
import type { StackConfigT } from '../../../shared/stack-config.ts';
import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { repoCacheStatus } from '../../catalogue/repo-cache-status.ts';
import { requireRole } from '../../core/authorize.ts';
import { isAppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { allFields } from '../../templates/render.ts';
import { prefill } from '../../templates/values.ts';
import { parseEnv } from '../store/env-file.ts';
import type { StackLocation } from '../store/stack-dir.ts';
import type { StackMetaT } from '../store/stack-files.ts';
import { serviceJoins } from './choices.ts';
import type { StackContext } from './stack-context.ts';

type Doc = Record<string, unknown>;

/** The template an app was installed from, or why there is none. */
export type SourceTemplate = { template: TemplateFileT; compose: string; commit: string | null } | NonNullable<StackConfigT['schema_missing']>;

/** Stored values back in the types they were entered in (`value_types`), so the form shows them as typed. */
export function typedValues(meta: StackMetaT): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const [k, v] of Object.entries(meta.values)) {
    const type = meta.value_types[k];
    out[k] = type === 'number' ? Number(v) : type === 'boolean' ? v === true || v === 'true' : v;
  }
  return out;
}

/**
 * The start values of the fields the app has no value of: those the store's template gained since the app's files
 * were rendered (a store update, `template_update`). The form starts them as an install's form would (a default, the
 * app's data folder), so saving Configure writes the new default instead of an empty value.
 */
function newFieldValues(c: Pick<StackContext, 'prefill'>, name: string, template: TemplateFileT, meta: StackMetaT): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (const f of allFields(template)) {
    if (Object.hasOwn(meta.value_types, f.id) || Object.hasOwn(meta.secret_env, f.id)) continue;
    const v = prefill(f, { ...c.prefill, name });
    if (v !== undefined) out[f.id] = v;
  }
  return out;
}

/** Secret form values read back from `.env` through the map in `.svc.json`. */
export function secretsFromEnv(meta: StackMetaT, env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, key] of Object.entries(meta.secret_env)) if (Object.hasOwn(env, key)) out[field] = env[key] as string;
  return out;
}

/** The template an app was installed from, or why there is none. */
export function sourceTemplate(c: Pick<StackContext, 'catalogue'>, loc: StackLocation, meta: StackMetaT | null): SourceTemplate {
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

/** Each service of the compose file with its image and the choices kept for it (tag, extras, networks). */
function servicesOf(doc: Doc, meta: StackMetaT | null): StackConfigT['services'] {
  return (doc.services && typeof doc.services === 'object' ? Object.entries(doc.services as Doc) : []).map(([svc, def]) => {
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
}

/** GET /api/stacks/<name>/config: the stored values (secrets for admins only), the form's schema, the choices. */
export function config(c: StackContext, actor: Actor, name: string): StackConfigT {
  requireRole(actor, 'operator', 'the configuration of an app');
  const loc = c.store.locate(name);
  const meta = c.store.meta(loc);
  const found = sourceTemplate(c, loc, meta);
  const admin = roleAllows(actor.role, 'admin');
  const secrets = meta ? secretsFromEnv(meta, parseEnv(c.store.envText(loc))) : {};
  const repo = meta?.source ? c.catalogue.list().find((r) => r.id === meta.source?.repo) : undefined;
  return {
    name,
    adopted: loc.adopted,
    source: meta?.source ? { repo: meta.source.repo, app: meta.source.app } : null,
    schema: typeof found === 'object' && meta?.source ? { repo: meta.source.repo, app: meta.source.app, template: found.template } : null,
    schema_missing: typeof found === 'object' ? null : found,
    values: {
      ...(typeof found === 'object' && meta ? newFieldValues(c, name, found.template, meta) : {}),
      ...(meta ? typedValues(meta) : {}),
      ...(admin ? secrets : {}),
    },
    secrets_hidden: admin ? [] : Object.keys(secrets),
    template_version: meta?.template_version ?? null,
    repo_status: repo ? repoCacheStatus(repo) : null,
    services: servicesOf(c.store.composeDoc(loc), meta),
    networks: meta?.networks ?? [],
  };
}

/** Form fields of the app's template, for the credentials panel; empty when there is none. */
export function templateFields(c: StackContext, loc: StackLocation) {
  const found = sourceTemplate(c, loc, c.store.meta(loc));
  return typeof found === 'object' ? allFields(found.template) : [];
}

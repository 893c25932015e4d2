import type { AppPowersT } from '../../../shared/powers.ts';
import type { FieldValue } from '../../../shared/template.ts';
import type { CatalogueService } from '../../catalogue/catalogue.service.ts';
import { requireRole } from '../../core/authorize.ts';
import type { Actor } from '../../core/events.ts';
import { composePowers } from '../../templates/compose-powers.ts';
import { renderTemplate } from '../../templates/render.ts';
import { type PrefillContext, resolveValues } from '../../templates/values.ts';
import { mayUsePowers, type PrivilegedPolicy } from './compose-policy.ts';

export interface AppPowersDeps {
  catalogue: Pick<CatalogueService, 'loadApp'>;
  prefill: PrefillContext;
  timezone: () => string;
  allowPrivileged: () => PrivilegedPolicy;
}

/**
 * What an app from the store would get over the host with the values of the form, rendered exactly as the
 * install renders it: the install form's review step names each power before anything is installed.
 */
export function createAppPowers(d: AppPowersDeps) {
  return function powers(actor: Actor, req: { repo: string; app: string; values: Record<string, FieldValue> }): AppPowersT {
    requireRole(actor, 'operator', 'the review of an install');
    const loaded = d.catalogue.loadApp(req.repo, req.app);
    const values = resolveValues(loaded.template, req.values, d.prefill);
    const render = renderTemplate({ template: loaded.template, compose: loaded.compose, values, timezone: d.timezone() });
    const uses = composePowers(render.compose, render.env);
    return { powers: uses, allowed: mayUsePowers(actor, uses, d.allowPrivileged()) };
  };
}

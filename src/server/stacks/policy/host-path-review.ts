import { isSafeName } from '../../../shared/names.ts';
import type { HostPathReviewT } from '../../../shared/powers.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { FieldValue } from '../../../shared/template.ts';
import type { CatalogueService } from '../../catalogue/catalogue.service.ts';
import { requireRole } from '../../core/authorize.ts';
import type { Actor } from '../../core/events.ts';
import { type BindRules, ownDataDir } from '../../settings/bind-rules.ts';
import { type HostSource, hostSources } from '../../templates/compose-sources.ts';
import { renderTemplate } from '../../templates/render.ts';
import { type PrefillContext, resolveValues } from '../../templates/values.ts';
import { appDataValues } from '../store/app-data.ts';
import { judge, pathFieldOf } from './bind-policy.ts';

export interface HostPathReviewDeps {
  catalogue: Pick<CatalogueService, 'loadApp'>;
  prefill: PrefillContext;
  timezone: () => string;
  binds: BindRules;
  /** The folder an app of that name would get (LIBRARY_DIR/<name>). */
  dirOf: (name: string) => string;
}

/** A name still being typed that is no app name judges as one no folder belongs to. */
const NO_NAME = '-';

/**
 * The install form's live look at host folders: the app rendered with the form's values exactly as the install
 * renders it, and every host path in it the bind policy (bind-policy.ts) would refuse for this app. The install
 * judges again; this only lets the form say it while the user types, and offer an admin the confirmation.
 */
export function createHostPathReview(d: HostPathReviewDeps) {
  return function hostPaths(actor: Actor, req: { repo: string; app: string; name: string; values: Record<string, FieldValue> }): HostPathReviewT {
    requireRole(actor, 'operator', 'the review of an install');
    const name = isSafeName(req.name) ? req.name : NO_NAME;
    const loaded = d.catalogue.loadApp(req.repo, req.app);
    const values = resolveValues(loaded.template, appDataValues(loaded.template, req.values, { dataDir: d.binds.dataDir, name }), { ...d.prefill, name });
    const render = renderTemplate({ template: loaded.template, compose: loaded.compose, values, timezone: d.timezone() });
    let sources: HostSource[];
    try {
      sources = hostSources(render.compose, render.env);
    } catch {
      // A compose file that cannot be read is the install's to refuse, with its own reason.
      sources = [];
    }
    const fieldOf = pathFieldOf(loaded.template, values);
    const scope = { app: name, stackDir: d.dirOf(name) };
    const refused = new Map<string, HostPathReviewT['refused'][number]>();
    for (const s of sources) {
      const j = judge(s, scope, d.binds);
      if (j.ok) continue;
      // Read-only only when every use of the path is a read-only bind.
      const readOnly = s.kind === 'bind' && s.readOnly === true;
      const seen = refused.get(j.path);
      if (seen) seen.read_only &&= readOnly;
      else refused.set(j.path, { field: fieldOf(s), path: j.path, reason: j.otherApp ? 'other_app' : 'not_allowed', app: j.otherApp, read_only: readOnly });
    }
    return { own: ownDataDir(d.binds, name), refused: [...refused.values()], may_confirm: roleAllows(actor.role, 'admin') };
  };
}

import { formatDateTime } from '../../../components/format-date-time.ts';
import { t } from '../../../i18n.ts';
import type { StackConfigT } from './configure-api.ts';

/**
 * Where the form comes from: repo and app, the template version, and what the repo cache holds. `storeVersion`: the
 * store's newer (or other) version of the template, whose form this is; applying it brings the app to that version.
 */
export function TemplateSource({ config, storeVersion }: { config: StackConfigT; storeVersion: string | null }) {
  const source = config.schema ?? config.source;
  if (!source) return null;
  const s = config.repo_status;
  return (
    <section class="card configure-source" aria-labelledby="configure-source-h">
      <h2 id="configure-source-h">{t('configure.source')}</h2>
      <dl class="configure-facts">
        <div>
          <dt>{t('configure.source_app')}</dt>
          <dd>{t('configure.source_value', { repo: source.repo, app: source.app })}</dd>
        </div>
        <div>
          <dt>{t('configure.template_version')}</dt>
          <dd>{config.template_version ? <code>{config.template_version}</code> : t('configure.unknown')}</dd>
        </div>
        {s && (
          <>
            <div>
              <dt>{t('configure.commit')}</dt>
              <dd>{s.commit ? <code title={s.commit}>{s.commit.slice(0, 7)}</code> : t('configure.unknown')}</dd>
            </div>
            <div>
              <dt>{t('configure.commit_date')}</dt>
              <dd>{s.commit_date ? formatDateTime(s.commit_date) : t('configure.unknown')}</dd>
            </div>
            <div>
              <dt>{t('configure.synced')}</dt>
              <dd>{s.synced_at ? formatDateTime(s.synced_at) : t('configure.never')}</dd>
            </div>
            <div>
              <dt>{t('configure.repo_version')}</dt>
              <dd>{s.version ? <code>{s.version}</code> : t('configure.unknown')}</dd>
            </div>
          </>
        )}
      </dl>
      {storeVersion !== null && config.schema && <p class="notice configure-template-update">{t('configure.template_update', { version: storeVersion })}</p>}
      {s?.outdated && (
        <p class="notice configure-outdated">
          <strong>{t('configure.outdated')}</strong> {t('configure.outdated_why', { version: s.version ?? '?' })}
        </p>
      )}
    </section>
  );
}

/** Why there is no form: an adopted app, or a template that is no longer in any repo cache. */
export function NoForm({ config }: { config: StackConfigT }) {
  const repo = config.source?.repo ?? '?';
  const app = config.source?.app ?? '?';
  const why =
    config.schema_missing === 'repo_missing'
      ? t('configure.no_form.repo_missing', { repo })
      : config.schema_missing === 'app_missing'
        ? t('configure.no_form.app_missing', { repo, app })
        : config.adopted || config.schema_missing === 'adopted'
          ? t('configure.no_form.adopted')
          : t('configure.no_form.other');
  return (
    <section class="card configure-none" aria-labelledby="configure-none-h">
      <h2 id="configure-none-h">{t('configure.no_form')}</h2>
      <p>{why}</p>
      <p>
        <a href="#files">{t('configure.to_files')}</a>
      </p>
    </section>
  );
}

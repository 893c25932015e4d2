import { useEffect, useRef, useState } from 'preact/hooks';
import type { JobT, StackT } from '../../../shared/api.ts';
import { listStacks } from '../../api.ts';
import { INSTALL_PATH } from '../../app-paths.ts';
import { AlertBox } from '../../components/error-message.tsx';
import { JobProgress } from '../../components/job-progress.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { t, useLang } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import { type AppSchemaT, getAppSchema, getStack } from './install-api.ts';
import { InstallForm } from './install-form.tsx';
import '../../forms/forms.css';
import './install.css';

function parse(path: string): { repo: string; app: string } | null {
  const m = INSTALL_PATH.exec(path);
  if (!m?.[1] || !m[2]) return null;
  try {
    return { repo: decodeURIComponent(m[1]), app: decodeURIComponent(m[2]) };
  } catch {
    return null;
  }
}

/** Install one app of the store: the form from its template, then the job's progress. */
export function InstallScreen({ path }: { path: string }) {
  useLang();
  const target = parse(path);
  const [schema, setSchema] = useState<AppSchemaT | null>(null);
  const [stacks, setStacks] = useState<StackT[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [started, setStarted] = useState<{ job: JobT; name: string } | null>(null);

  useEffect(() => {
    if (!target) return;
    let live = true;
    // The list of installed apps only helps (connect choices, a free name); the form works without it.
    Promise.all([getAppSchema(target.repo, target.app), listStacks().catch(() => [] as StackT[])]).then(
      ([s, st]) => {
        if (!live) return;
        setSchema(s);
        setStacks(st);
      },
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [target?.repo, target?.app]);

  const appName = schema?.template.name ?? target?.app ?? '';
  return (
    <section class="page install-page" aria-labelledby="page-title">
      <PageHead title={t('install.heading', { name: appName })}>
        <a href="/store" class="btn btn-small" onClick={onLinkClick}>
          {t('install.to_store')}
        </a>
      </PageHead>
      {target === null && (
        <AlertBox>
          <p>{t('install.bad_path')}</p>
        </AlertBox>
      )}
      <LoadState error={error} loading={schema === null} text={t('install.loading')} />
      {schema !== null && !started && <InstallForm schema={schema} stacks={stacks} onStarted={(job, name) => setStarted({ job, name })} />}
      {started && <InstallProgress job={started.job} name={started.name} />}
    </section>
  );
}

/** The install job as it runs; afterwards the way to the app, or the log with the reason it failed. */
function InstallProgress({ job, name }: { job: JobT; name: string }) {
  const [ended, setEnded] = useState<JobT | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    if (ended?.state !== 'succeeded') return;
    getStack(name).then(
      (s) => setUrl(s.url),
      () => setUrl(null),
    );
  }, [ended, name]);
  return (
    <div class="card install-card install-job">
      <h2 ref={heading} tabIndex={-1}>
        {!ended
          ? t('install.job_heading', { name })
          : ended.state === 'succeeded'
            ? t('install.job_heading_done', { name })
            : t('install.job_heading_failed', { name })}
      </h2>
      <JobProgress job={job} label={t('install.job_label', { name })} onEnd={setEnded} />
      {ended?.state === 'succeeded' && (
        <div class="install-done">
          <p>{t('install.done', { name })}</p>
          <div class="install-links">
            <a href="/apps" class="btn btn-primary" onClick={onLinkClick}>
              {t('install.to_apps')}
            </a>
            {url && (
              <a href={url} class="btn" target="_blank" rel="noopener noreferrer">
                {t('install.open', { url })} <span aria-hidden="true">↗</span>
              </a>
            )}
          </div>
        </div>
      )}
      {ended && ended.state !== 'succeeded' && (
        <AlertBox>
          <p>{t('install.failed', { name })}</p>
        </AlertBox>
      )}
      {ended && ended.state !== 'succeeded' && (
        <div class="install-links">
          <a href="/apps" class="btn" onClick={onLinkClick}>
            {t('install.to_apps')}
          </a>
          <a href="/store" class="btn" onClick={onLinkClick}>
            {t('install.to_store')}
          </a>
        </div>
      )}
    </div>
  );
}

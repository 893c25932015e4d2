import { useEffect, useRef, useState } from 'preact/hooks';
import type { JobT, StackT } from '../../../../shared/api.ts';
import { roleAllows } from '../../../../shared/roles.ts';
import { listStacks, type UserT } from '../../../api.ts';
import { AlertBox, ErrorMessage } from '../../../components/error-message.tsx';
import { JobProgress } from '../../../components/job-progress.tsx';
import { useInstances } from '../../../forms/connect-instances.ts';
import { t, useLang } from '../../../i18n.ts';
import { AppNetworks } from './app-networks.tsx';
import { type DeviceT, getStackConfig, getStackDetail, listDevices, type RunningT, runningOf, type StackConfigT } from './configure-api.ts';
import { ConfigureForm } from './configure-form.tsx';
import { NoForm, TemplateSource } from './template-source.tsx';
import '../../../forms/forms.css';
import './configure.css';

type Run = { job: JobT; ended: JobT | null };

/** The tab's state: the stored configuration, what runs now, the helpers of the form, and the reconfigure job. */
function useConfigureTab(name: string, allowed: boolean, filesVersion: string | null | undefined) {
  const [config, setConfig] = useState<StackConfigT | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Bumped on every load and reset, so the form starts again from the stored values.
  const [generation, setGeneration] = useState(0);
  const [stacks, setStacks] = useState<StackT[]>([]);
  const [devices, setDevices] = useState<DeviceT[] | null>(null);
  // What each service runs now; null while unknown (the form then shows the compose file's image).
  const [running, setRunning] = useState<RunningT | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  // The app's files as the form was last read from them; when they change (a restore, an edit, by anyone) it reads them again.
  const loadedFrom = useRef<string | null | undefined>(undefined);
  const [changedUnder, setChangedUnder] = useState(false);

  /** What runs now, and which version of the files the form stands on (none while that is read). */
  const readRunning = () => {
    loadedFrom.current = undefined;
    getStackDetail(name).then(
      (d) => {
        setRunning(runningOf(d));
        loadedFrom.current = d.files_version;
      },
      () => setRunning(null),
    );
  };

  const load = () => {
    readRunning();
    return getStackConfig(name).then(
      (c) => {
        setConfig(c);
        setError(null);
        setGeneration((g) => g + 1);
      },
      (e: unknown) => setError(e),
    );
  };

  // After a network change: the new memberships without starting the form again, so unsaved edits stay.
  const refresh = () => {
    readRunning();
    getStackConfig(name).then(setConfig, (e: unknown) => setError(e));
  };

  useEffect(() => {
    if (!allowed) return;
    setConfig(null);
    setRun(null);
    void load();
    // Both only help (connect choices, device suggestions); the form works without them.
    listStacks().then(setStacks, () => setStacks([]));
    listDevices().then(setDevices, () => setDevices(null));
  }, [name, allowed]);

  const jobRunning = run !== null && run.ended === null;
  useEffect(() => {
    if (filesVersion === undefined || loadedFrom.current === undefined || filesVersion === loadedFrom.current || jobRunning) return;
    loadedFrom.current = filesVersion;
    setChangedUnder(true);
    void load();
  }, [filesVersion, jobRunning]);

  const onEnd = (ended: JobT) => {
    setRun((r) => (r ? { ...r, ended } : r));
    // A failed change put the old files back: the form keeps the user's values to try again.
    if (ended.state === 'succeeded') void load();
    else readRunning();
  };
  const onStarted = (job: JobT) => {
    setChangedUnder(false);
    setRun({ job, ended: null });
  };
  const reset = () => setGeneration((g) => g + 1);
  return { config, error, generation, stacks, devices, running, run, jobRunning, changedUnder, refresh, onEnd, onStarted, reset };
}

/**
 * The Configure tab of an app: the template's form with the stored values and the extras, applied by a job.
 * `templateUpdate`: the store's version of the template when it is another than the one the app's files come from.
 */
export function ConfigureTab(p: { name: string; user: UserT; filesVersion?: string | null; templateUpdate?: string | null }) {
  const { name, user, filesVersion } = p;
  useLang();
  const allowed = roleAllows(user.role, 'operator');
  const { config, error, running, run, jobRunning, ...tab } = useConfigureTab(name, allowed, filesVersion);
  // Installed apps a connect field may point at, with the ports they publish.
  const instances = useInstances(tab.stacks, config?.schema?.template ?? null);
  if (!allowed) return <p class="muted configure-denied">{t('configure.need_operator')}</p>;
  return (
    <div class="configure">
      <ErrorMessage error={error} />
      {tab.changedUnder && (
        <p class="notice configure-reloaded" role="status">
          {t('configure.files_changed')}
        </p>
      )}
      {config === null && !error && (
        <p class="muted" role="status">
          {t('configure.loading')}
        </p>
      )}
      {config && <TemplateSource config={config} storeVersion={p.templateUpdate ?? null} />}
      {config && config.schema === null && <NoForm config={config} />}
      {run && <RunPanel key={run.job.id} run={run} name={name} onEnd={tab.onEnd} />}
      {config?.schema && (
        // Hidden, not unmounted, while the job runs: after a failure the user's changes are still there to retry.
        <div hidden={jobRunning}>
          <ConfigureForm
            key={tab.generation}
            stack={name}
            config={{ ...config, schema: config.schema }}
            instances={instances}
            devices={tab.devices}
            running={running}
            onStarted={tab.onStarted}
            onReset={tab.reset}
          />
        </div>
      )}
      {config && (
        <AppNetworks
          name={name}
          config={config}
          own={running?.containers ?? []}
          locked={jobRunning}
          isAdmin={roleAllows(user.role, 'admin')}
          onChanged={tab.refresh}
        />
      )}
    </div>
  );
}

/** The reconfigure job as it runs, and how it ended: applied, or failed with the old state put back. */
function RunPanel({ run, name, onEnd }: { run: Run; name: string; onEnd: (j: JobT) => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const { ended } = run;
  const ok = ended?.state === 'succeeded';
  return (
    <section class="card configure-run" aria-labelledby={`configure-run-${run.job.id}`}>
      <h2 id={`configure-run-${run.job.id}`} ref={heading} tabIndex={-1}>
        {!ended ? t('configure.job_heading', { name }) : ok ? t('configure.job_heading_done', { name }) : t('configure.job_heading_failed', { name })}
      </h2>
      <JobProgress job={run.job} label={t('configure.job_label', { name })} onEnd={onEnd} />
      {ok && (
        <p class="configure-done" role="status">
          <span aria-hidden="true">✓ </span>
          {t('configure.done', { name })}
        </p>
      )}
      {ended && !ok && (
        <AlertBox>
          <p>{t('configure.failed')}</p>
          <p>{t('configure.restored')}</p>
        </AlertBox>
      )}
    </section>
  );
}

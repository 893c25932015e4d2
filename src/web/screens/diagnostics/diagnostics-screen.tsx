import { useEffect, useState } from 'preact/hooks';
import { copyText } from '../../components/copy-text.ts';
import { EngineRestart } from '../../components/engine-restart.tsx';
import { LoadState } from '../../components/load-state.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { useAction } from '../../components/use-action.ts';
import { t } from '../../i18n.ts';
import { checkTitle, type DoctorCheckT, type DoctorReportT, fetchDoctor } from './diagnostics-api.ts';
import { findingText } from './doctor-text.ts';
import './diagnostics.css';

const ICON: Record<DoctorCheckT['status'], string> = { ok: '✓', warn: '!', error: '✕' };

/** Kade's own diagnosis for admins (GET /api/doctor): every check, its status and the command that fixes it. */
export function DiagnosticsScreen() {
  const [report, setReport] = useState<DoctorReportT | null>(null);
  const check = useAction(async () => setReport(await fetchDoctor()));
  const { busy, error } = check;
  const run = () => void check.run();
  useEffect(run, []);

  const errors = report?.checks.filter((c) => c.status === 'error').length ?? 0;
  const warnings = report?.checks.filter((c) => c.status === 'warn').length ?? 0;
  return (
    <section class="page" aria-labelledby="page-title">
      <PageHead title={t('doctor.title')}>
        <button type="button" class="btn btn-small" onClick={run} disabled={busy}>
          {busy ? t('doctor.running') : t('doctor.run_again')}
        </button>
      </PageHead>
      <p class="muted doctor-intro">{t('doctor.intro')}</p>
      <LoadState error={error} loading={!report} text={t('doctor.running')} />
      {report && (
        <>
          <p class={`doctor-summary doctor-summary-${errors > 0 ? 'error' : 'ok'}`} role="status">
            {errors === 0 ? t('doctor.summary_ok') : errors === 1 ? t('doctor.summary_errors_one') : t('doctor.summary_errors_many', { count: errors })}
            {warnings > 0 && ` ${warnings === 1 ? t('doctor.summary_warnings_one') : t('doctor.summary_warnings_many', { count: warnings })}`}
          </p>
          <ul class="doctor-list" aria-busy={busy}>
            {report.checks.map((c) => (
              <CheckRow key={c.id} check={c} />
            ))}
          </ul>
        </>
      )}
      <EngineRestart />
    </section>
  );
}

function CheckRow({ check: c }: { check: DoctorCheckT }) {
  return (
    <li class={`card doctor-check doctor-${c.status}`} data-check={c.id}>
      <span class="doctor-icon" aria-hidden="true">
        {ICON[c.status]}
      </span>
      <div class="doctor-body">
        <p class="doctor-head">
          <span class="doctor-status">{t(`doctor.status.${c.status}`)}</span> <strong>{t(checkTitle(c.id))}</strong>
        </p>
        <p class="doctor-message">{findingText(c, c.message)}</p>
        {c.details && c.details.length > 0 && (
          <ul class="doctor-details">
            {c.details.map((d, i) => {
              const coded = c.detail_codes?.[i];
              return <li key={d}>{coded ? findingText(coded, d) : d}</li>;
            })}
          </ul>
        )}
        {c.fix && c.status !== 'ok' && <FixLine fix={c.fix} />}
      </div>
    </li>
  );
}

function FixLine({ fix }: { fix: string }) {
  const [copied, setCopied] = useState<boolean | null>(null);
  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), 3000);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <div class="doctor-fix">
      <span class="doctor-fix-label">{t('doctor.fix')}</span>
      <code class="doctor-fix-text">{fix}</code>
      <button type="button" class="btn btn-small" onClick={() => void copyText(fix).then(setCopied)}>
        {t('doctor.copy')}
      </button>
      <span class="doctor-copied" role="status">
        {copied === true ? t('doctor.copied') : copied === false ? t('doctor.copy_failed') : ''}
      </span>
    </div>
  );
}

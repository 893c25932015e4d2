import { useEffect, useRef, useState } from 'preact/hooks';
import type { WizardStateT } from '../../../shared/settings.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { getSettings } from '../../components/settings-api.ts';
import { type MessageKey, t } from '../../i18n.ts';
import { navigate } from '../../router.ts';
import { completeWizard, getWizard } from './wizard-api.ts';
import { DoneStep, PathsStep, RepoStep, SyncStep } from './wizard-steps.tsx';
import '../../components/settings-form.css';
import './wizard.css';

type Step = 'paths' | 'repo' | 'sync' | 'done';
const STEPS: { id: Step; label: MessageKey }[] = [
  { id: 'paths', label: 'wizard.step.paths' },
  { id: 'repo', label: 'wizard.step.repo' },
  { id: 'sync', label: 'wizard.step.sync' },
  { id: 'done', label: 'wizard.step.done' },
];

/** The first-run wizard: folders, a template repo, the first sync, done. */
export function WizardScreen() {
  const [step, setStep] = useState<Step>('paths');
  const [base, setBase] = useState<string | null>(null);
  const [state, setState] = useState<WizardStateT | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    Promise.all([getSettings(), getWizard()])
      .then(([s, w]) => {
        setBase(s.BASE_DIR);
        setState(w);
      })
      .catch(setError);
  }, []);
  // A new step starts at its heading, so keyboard and screen-reader users know where they are;
  // on arrival the page heading has the focus, as on every screen.
  const arrived = useRef(false);
  useEffect(() => {
    if (arrived.current) document.getElementById('wizard-step-title')?.focus();
    arrived.current = true;
  }, [step]);

  const finish = async () => {
    try {
      await completeWizard();
      navigate('/apps');
    } catch (e) {
      setError(e);
    }
  };

  const index = STEPS.findIndex((s) => s.id === step);
  return (
    <section class="page wizard-page" aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {t('wizard.title')}
        </h1>
        {step !== 'done' && (
          <button type="button" class="btn btn-quiet btn-small" onClick={() => void finish()}>
            {t('wizard.skip')}
          </button>
        )}
      </div>
      <p class="muted page-intro">{t('wizard.intro', { count: STEPS.length })}</p>
      <ol class="wizard-steps" aria-label={t('wizard.steps')}>
        {STEPS.map((s, i) => (
          <li key={s.id} aria-current={s.id === step ? 'step' : undefined} class={i < index ? 'step-done' : undefined}>
            <span class="step-number" aria-hidden="true">
              {i < index ? '✓' : i + 1}
            </span>
            <span>{t(s.label)}</span>
          </li>
        ))}
      </ol>
      <ErrorMessage error={error} />
      {base !== null && state !== null && (
        <div class="card wizard-card">
          <p class="muted small">{t('wizard.step_of', { n: index + 1, total: STEPS.length })}</p>
          {step === 'paths' && <PathsStep initial={base} onDone={() => setStep('repo')} />}
          {step === 'repo' && <RepoStep repos={state.repos} onBack={() => setStep('paths')} onDone={() => setStep('sync')} />}
          {step === 'sync' && <SyncStep onBack={() => setStep('repo')} onDone={() => setStep('done')} />}
          {step === 'done' && <DoneStep onFinish={finish} />}
        </div>
      )}
    </section>
  );
}

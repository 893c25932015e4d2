import { useId } from 'preact/hooks';
import type { FieldValue, TemplateFieldT } from '../../../shared/template.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import type { Instance } from '../../forms/connect-field.tsx';
import { advancedCount, type FormValues, groupEnabled, isValidName, type Step, textIn, toggleId } from '../../forms/install-model.ts';
import { MissingFields } from '../../forms/missing-fields.tsx';
import { Switch } from '../../forms/switch.tsx';
import { TemplateField } from '../../forms/template-field.tsx';
import { getLang, t } from '../../i18n.ts';
import { type InstallChecks, UnplacedFolders } from './install-checks.tsx';
import { NameField } from './name-field.tsx';
import { PowersBox } from './powers-review.tsx';
import { ReviewStep } from './review-step.tsx';
import { stepKey, stepTitle } from './step-title.ts';
import { type InstallFormProps, useInstallForm } from './use-install-form.ts';

type Form = ReturnType<typeof useInstallForm>;

/** The install form: the name and ungrouped fields, one step per group, and a review before the install. */
export function InstallForm(props: InstallFormProps) {
  const { template } = props.schema;
  const id = useId();
  const f = useInstallForm(props);
  const { steps, index, step } = f.stepper;
  const hidden = advancedCount(template);
  return (
    <div class="install">
      {hidden > 0 && <Switch class="install-advanced" checked={f.stepper.advanced} onChange={f.setAdvanced} label={t('install.advanced', { count: hidden })} />}
      <StepList steps={steps} index={index} onGo={f.go} />
      <form class="card install-card install-form" onSubmit={f.onSubmit} noValidate aria-labelledby={`${id}-step`}>
        <div class="install-step-head">
          <h2 id={`${id}-step`} ref={f.stepper.heading} tabIndex={-1}>
            <span class="muted install-step-count">{t('install.step_of', { step: index + 1, total: steps.length })}</span> {step ? stepTitle(step) : ''}
          </h2>
          {step?.kind === 'group' && step.group.toggle && (
            <Switch
              checked={groupEnabled(step.group, f.values)}
              onChange={(on) => f.setValue(toggleId(step.group.id), on)}
              label={t('install.group_on', { group: textIn(step.group.label, getLang()) })}
            />
          )}
        </div>
        <MissingFields template={template} missing={f.stillMissing} />
        <ErrorMessage error={f.failure} />
        {step && <StepBody f={f} step={step} blockedId={`${id}-blocked`} />}
        <InstallNav f={f} blockedId={`${id}-blocked`} />
      </form>
    </div>
  );
}

/** The steps as a list: the ones done are links back, the current one is marked. */
function StepList({ steps, index, onGo }: { steps: Step[]; index: number; onGo: (key: string) => void }) {
  return (
    <nav aria-label={t('install.steps_label')}>
      <ol class="install-steps">
        {steps.map((s, i) => {
          const here = i === index;
          return (
            <li key={stepKey(s)} class={here ? 'is-current' : i < index ? 'is-done' : ''}>
              {i < index ? (
                <button type="button" class="install-step-link" onClick={() => onGo(stepKey(s))}>
                  <StepNo n={i + 1} />
                  {stepTitle(s)}
                </button>
              ) : (
                <span class="install-step-link" aria-current={here ? 'step' : undefined}>
                  <StepNo n={i + 1} />
                  {stepTitle(s)}
                </span>
              )}
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

const StepNo = ({ n }: { n: number }) => (
  <span class="install-step-no" aria-hidden="true">
    {n}
  </span>
);

/** The current step's fields, or the review with what blocks the install. */
function StepBody({ f, step, blockedId }: { f: Form; step: Step; blockedId: string }) {
  if (step.kind === 'review') {
    return (
      <>
        <PowersBox powers={f.powers} messageId={`${blockedId}-powers`} />
        <UnplacedFolders checks={f.checks} />
        <ReviewStep name={f.name} steps={f.stepper.steps} values={f.values} onEdit={f.go} fill={f.fill} />
        {f.liveNameProblem && (
          <p class="field-error install-blocked" id={blockedId}>
            {isValidName(f.name) ? t('install.name_blocked', { name: f.name }) : t('install.name_blocked_invalid')}
          </p>
        )}
      </>
    );
  }
  const on = step.kind === 'main' || groupEnabled(step.group, f.values);
  return (
    <>
      {step.kind === 'main' && <NameField value={f.name} onInput={f.renameTo} error={f.nameError} live={f.name === '' ? null : f.liveNameProblem} />}
      {on && (
        <Fields
          fields={step.fields}
          values={f.values}
          errors={f.errors}
          onChange={f.setValue}
          instances={f.instances}
          fill={f.fill}
          checks={f.checks}
          stopped={f.stopped}
        />
      )}
      {!on && <p class="muted install-off">{t('install.group_off')}</p>}
    </>
  );
}

/** Back to the step before, and on to the next or the install itself. */
function InstallNav({ f, blockedId }: { f: Form; blockedId: string }) {
  const { steps, index, step } = f.stepper;
  const back = steps[index - 1];
  return (
    <div class="install-nav">
      {back ? (
        <button type="button" class="btn" onClick={() => f.go(stepKey(back))}>
          {t('install.back')}
        </button>
      ) : (
        <span />
      )}
      {step?.kind === 'review' ? (
        <button
          type="submit"
          class="btn btn-primary"
          aria-disabled={f.busy}
          disabled={f.liveNameProblem !== null || f.powers.blocked}
          aria-describedby={f.liveNameProblem ? blockedId : f.powers.blocked ? `${blockedId}-powers` : undefined}
        >
          {f.busy ? t('install.installing') : t('install.install')}
        </button>
      ) : (
        <button type="submit" class="btn btn-primary">
          {t('install.next')}
        </button>
      )}
    </div>
  );
}

function Fields(p: {
  fields: TemplateFieldT[];
  values: FormValues;
  errors: Record<string, string>;
  onChange: (id: string, v: FieldValue) => void;
  instances: (app: string) => Instance[];
  fill: (text: string) => string;
  checks: InstallChecks;
  stopped: ReadonlySet<string>;
}) {
  if (p.fields.length === 0) return null;
  return (
    <div class="install-fields">
      {p.fields.map((f) => (
        <TemplateField
          key={f.id}
          field={f}
          value={p.values[f.id]}
          onChange={(v) => p.onChange(f.id, v)}
          error={p.errors[f.id] ?? (p.stopped.has(f.id) ? p.checks.blocking(f.id) : p.checks.live(f.id))}
          instances={p.instances}
          fill={p.fill}
          footer={p.checks.footer(f)}
          onPortCheck={p.checks.onPortCheck(f.id)}
        />
      ))}
    </div>
  );
}

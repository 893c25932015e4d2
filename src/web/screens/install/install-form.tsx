import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import type { JobT, StackT } from '../../../shared/api.ts';
import type { FieldValue, TemplateFieldT } from '../../../shared/template.ts';
import { ApiError } from '../../api.ts';
import { AlertBox, ErrorMessage, errorText } from '../../components/error-message.tsx';
import { getLang, t } from '../../i18n.ts';
import type { Instance } from './connect-field.tsx';
import { type AppSchemaT, installApp } from './install-api.ts';
import {
  advancedCount,
  allFields,
  buildSteps,
  type FormValues,
  freeName,
  groupEnabled,
  isValidName,
  missingIn,
  requestValues,
  type Step,
  startValues,
  stepOf,
  textIn,
  toggleId,
} from './install-model.ts';
import { ReviewStep } from './review-step.tsx';
import { stepKey, stepTitle } from './step-title.ts';
import { TemplateField } from './template-field.tsx';

interface Props {
  schema: AppSchemaT;
  stacks: StackT[];
  onStarted: (job: JobT, name: string) => void;
}

/** The install form: the name and ungrouped fields, one step per group, and a review before the install. */
export function InstallForm({ schema, stacks, onStarted }: Props) {
  const { template } = schema;
  const id = useId();
  const taken = useMemo(() => stacks.map((s) => s.name), [stacks]);
  const [name, setName] = useState(() => freeName(schema.app, taken));
  const [values, setValues] = useState<FormValues>(() => startValues(template, schema.values));
  const [advanced, setAdvanced] = useState(false);
  const [current, setCurrent] = useState('main');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [nameError, setNameError] = useState<string | null>(null);
  const [missing, setMissing] = useState<string[]>([]);
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);

  const steps = useMemo(() => buildSteps(template, advanced), [template, advanced]);
  const index = Math.max(
    0,
    steps.findIndex((s) => stepKey(s) === current),
  );
  const step = steps[index] ?? steps[0];
  const hidden = advancedCount(template);
  const labelOf = (fid: string) => {
    const f = allFields(template).find((x) => x.id === fid);
    return f ? textIn(f.label, getLang()) : fid;
  };
  const instances = (app: string): Instance[] => stacks.filter((s) => s.source?.app === app).map((s) => ({ name: s.name }));

  // The heading of a new step takes the focus, so a keyboard or screen-reader user starts at its top.
  // After a jump to a refused field, that field takes it instead.
  const toInvalid = useRef(false);
  useEffect(() => {
    if (toInvalid.current) focusFirstInvalid();
    else if (moved.current) heading.current?.focus();
    toInvalid.current = false;
    moved.current = true;
  }, [current]);

  // The summary shrinks as fields are filled in; a field's mark goes with its first change.
  const stillMissing = missing.filter((fid) => errors[fid] !== undefined);
  const liveNameProblem = !isValidName(name) ? t('install.name_invalid') : taken.includes(name) ? t('install.name_taken', { name }) : null;

  const setValue = (fid: string, v: FieldValue) => {
    setValues((old) => ({ ...old, [fid]: v }));
    if (errors[fid]) {
      const { [fid]: _gone, ...rest } = errors;
      setErrors(rest);
    }
  };

  const go = (key: string) => {
    setMissing([]);
    setFailure(null);
    setCurrent(key);
  };

  /** Marks the empty required fields of the given steps; true when there are none. */
  const checkSteps = (which: Step[]): boolean => {
    const empty = which.flatMap((s) => missingIn(s, values));
    const badName = which.some((s) => s.kind === 'main') && !isValidName(name);
    setNameError(badName ? t('install.name_invalid') : null);
    if (empty.length === 0 && !badName) return true;
    setErrors((old) => ({ ...old, ...Object.fromEntries(empty.map((f) => [f.id, t('install.required_field')])) }));
    setMissing(empty.map((f) => f.id));
    const first = steps.findIndex((s) => which.includes(s) && (missingIn(s, values).length > 0 || (s.kind === 'main' && badName)));
    const target = steps[first];
    if (target && stepKey(target) !== current) jumpTo(stepKey(target));
    else focusFirstInvalid();
    return false;
  };

  const jumpTo = (key: string) => {
    toInvalid.current = true;
    setCurrent(key);
  };

  const focusFirstInvalid = () => {
    setTimeout(() => (document.querySelector('.install-form [aria-invalid="true"]') as HTMLElement | null)?.focus(), 0);
  };

  const next = () => {
    if (!checkSteps([step as Step])) return;
    const following = steps[index + 1];
    if (following) go(stepKey(following));
  };

  const submit = async () => {
    if (!checkSteps(steps)) return;
    setBusy(true);
    setFailure(null);
    try {
      const job = await installApp({ repo: schema.repo, app: schema.app, name, values: requestValues(template, values) });
      onStarted(job, name);
    } catch (e) {
      showRefusal(e);
    } finally {
      setBusy(false);
    }
  };

  /** The server is the authority: mark what it named and go to the first step that shows it. */
  const showRefusal = (e: unknown) => {
    if (!(e instanceof ApiError)) return setFailure(e);
    if (e.code === 'invalid_name' || e.code === 'name_taken' || e.fields.includes('name')) {
      // Said once, at the name field, which takes the focus.
      setNameError(errorText(e));
      if (current === 'main') focusFirstInvalid();
      else jumpTo('main');
      return;
    }
    const named = e.fields.filter((f) => f !== 'name');
    if (named.length === 0) return setFailure(e);
    const message = e.code === 'required_fields' ? t('install.required_field') : e.detail || errorText(e);
    setErrors(Object.fromEntries(named.map((f) => [f, message])));
    if (e.code === 'required_fields') setMissing(named);
    else setFailure(e);
    // A field behind the advanced switch is shown, so it can be filled in.
    let all = steps;
    if (stepOf(steps, named) < 0) {
      all = buildSteps(template, true);
      setAdvanced(true);
    }
    const at = all[stepOf(all, named)];
    if (at && stepKey(at) !== current) jumpTo(stepKey(at));
    else focusFirstInvalid();
  };

  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    if (step?.kind === 'review') void submit();
    else next();
  };

  const back = steps[index - 1];
  return (
    <div class="install">
      {hidden > 0 && (
        <label class="switch install-advanced" for={`${id}-adv`}>
          <input
            id={`${id}-adv`}
            type="checkbox"
            role="switch"
            checked={advanced}
            aria-checked={advanced}
            onChange={(e) => {
              const on = e.currentTarget.checked;
              setAdvanced(on);
              // A step that disappears with the switch gives way to the first one.
              if (!on && !buildSteps(template, false).some((s) => stepKey(s) === current)) go('main');
            }}
          />
          <span class="switch-track" aria-hidden="true" />
          <span class="switch-label">{t('install.advanced', { count: hidden })}</span>
        </label>
      )}
      <nav aria-label={t('install.steps_label')}>
        <ol class="install-steps">
          {steps.map((s, i) => {
            const here = i === index;
            return (
              <li key={stepKey(s)} class={here ? 'is-current' : i < index ? 'is-done' : ''}>
                {i < index ? (
                  <button type="button" class="install-step-link" onClick={() => go(stepKey(s))}>
                    <span class="install-step-no" aria-hidden="true">
                      {i + 1}
                    </span>
                    {stepTitle(s)}
                  </button>
                ) : (
                  <span class="install-step-link" aria-current={here ? 'step' : undefined}>
                    <span class="install-step-no" aria-hidden="true">
                      {i + 1}
                    </span>
                    {stepTitle(s)}
                  </span>
                )}
              </li>
            );
          })}
        </ol>
      </nav>
      <form class="card install-card install-form" onSubmit={onSubmit} noValidate aria-labelledby={`${id}-step`}>
        <div class="install-step-head">
          <h2 id={`${id}-step`} ref={heading} tabIndex={-1}>
            <span class="muted install-step-count">{t('install.step_of', { step: index + 1, total: steps.length })}</span> {step ? stepTitle(step) : ''}
          </h2>
          {step?.kind === 'group' && step.group.toggle && (
            <label class="switch" for={`${id}-toggle`}>
              <input
                id={`${id}-toggle`}
                type="checkbox"
                role="switch"
                checked={groupEnabled(step.group, values)}
                aria-checked={groupEnabled(step.group, values)}
                onChange={(e) => setValue(toggleId(step.group.id), e.currentTarget.checked)}
              />
              <span class="switch-track" aria-hidden="true" />
              <span class="switch-label">{t('install.group_on', { group: textIn(step.group.label, getLang()) })}</span>
            </label>
          )}
        </div>
        {stillMissing.length > 0 && (
          <AlertBox>
            <p>{t('install.missing', { fields: stillMissing.map(labelOf).join(', ') })}</p>
          </AlertBox>
        )}
        <ErrorMessage error={failure} />
        {step?.kind === 'main' && (
          <NameField
            value={name}
            onInput={(v) => {
              setName(v);
              setNameError(null);
            }}
            error={nameError}
            live={name === '' ? null : liveNameProblem}
          />
        )}
        {step && step.kind !== 'review' && (step.kind === 'main' || groupEnabled(step.group, values)) && (
          <Fields fields={step.fields} values={values} errors={errors} onChange={setValue} instances={instances} />
        )}
        {step?.kind === 'group' && !groupEnabled(step.group, values) && <p class="muted install-off">{t('install.group_off')}</p>}
        {step?.kind === 'review' && <ReviewStep name={name} steps={steps} values={values} onEdit={go} />}
        <div class="install-nav">
          {back ? (
            <button type="button" class="btn" onClick={() => go(stepKey(back))}>
              {t('install.back')}
            </button>
          ) : (
            <span />
          )}
          {step?.kind === 'review' ? (
            <button type="submit" class="btn btn-primary" aria-disabled={busy}>
              {busy ? t('install.installing') : t('install.install')}
            </button>
          ) : (
            <button type="submit" class="btn btn-primary">
              {t('install.next')}
            </button>
          )}
        </div>
      </form>
    </div>
  );
}

function Fields(p: {
  fields: TemplateFieldT[];
  values: FormValues;
  errors: Record<string, string>;
  onChange: (id: string, v: FieldValue) => void;
  instances: (app: string) => Instance[];
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
          error={p.errors[f.id] ?? null}
          instances={p.instances}
        />
      ))}
    </div>
  );
}

/** The name of the new app: its folder and compose project, checked while typing. */
function NameField({ value, onInput, error, live }: { value: string; onInput: (v: string) => void; error: string | null; live: string | null }) {
  const id = useId();
  const problem = error ?? live;
  return (
    <div class="ifield install-name">
      <div class="ifield-label">
        <label for={id}>{t('install.name')}</label>
        <span class="req" aria-hidden="true">
          *
        </span>
      </div>
      <input
        id={id}
        name="name"
        type="text"
        class="mono"
        required
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        autocomplete="off"
        autocapitalize="off"
        spellcheck={false}
        maxLength={63}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={`${id}-hint${problem ? ` ${id}-err` : ''}`}
      />
      <p class="hint" id={`${id}-hint`}>
        {t('install.name_hint')}
      </p>
      {problem && (
        <p class="field-error" id={`${id}-err`} aria-live="polite">
          {problem}
        </p>
      )}
    </div>
  );
}

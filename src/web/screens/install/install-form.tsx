import { useEffect, useId, useMemo, useRef, useState } from 'preact/hooks';
import type { JobT, StackT } from '../../../shared/api.ts';
import { fillPlaceholders } from '../../../shared/placeholders.ts';
import type { FieldValue, TemplateFieldT } from '../../../shared/template.ts';
import { ApiError } from '../../api.ts';
import { AlertBox, ErrorMessage, errorText } from '../../components/error-message.tsx';
import { PowersWarning } from '../../components/powers-warning.tsx';
import { useAction } from '../../components/use-action.ts';
import type { Instance } from '../../forms/connect-field.tsx';
import { useInstances } from '../../forms/connect-instances.ts';
import { nameProblem } from '../../forms/field-messages.ts';
import { issueText, refusedFieldText } from '../../forms/field-problem.ts';
import {
  advancedCount,
  allFields,
  buildSteps,
  type FormValues,
  followers,
  freeName,
  groupEnabled,
  isValidName,
  problemsIn,
  requestValues,
  type Step,
  startValues,
  stepOf,
  textIn,
  toggleId,
} from '../../forms/install-model.ts';
import { TemplateField } from '../../forms/template-field.tsx';
import { getLang, t } from '../../i18n.ts';
import { type AppSchemaT, installApp } from './install-api.ts';
import { type InstallChecks, UnplacedFolders, useInstallChecks } from './install-checks.tsx';
import { NameField } from './name-field.tsx';
import { ReviewStep } from './review-step.tsx';
import { stepKey, stepTitle } from './step-title.ts';

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
  const dataRoot = schema.data_root;
  const fill = (text: string, forName = name) => fillPlaceholders(text, { name: forName, dataRoot: dataRoot ?? '' });
  // Values that follow the typed name ({name} in a default, the data folder) until the user edits them.
  const [following, setFollowing] = useState(() => followers(template, startValues(template, schema.values), dataRoot));
  const [values, setValues] = useState<FormValues>(() => {
    const start = startValues(template, schema.values);
    for (const [fid, text] of following) start[fid] = fill(text);
    return start;
  });
  const [advanced, setAdvanced] = useState(false);
  const [current, setCurrent] = useState('main');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [nameError, setNameError] = useState<string | null>(null);
  const [missing, setMissing] = useState<string[]>([]);
  // Fields the user was stopped at for a reason beyond their rules (a port in use): said until that reason goes.
  const [stopped, setStopped] = useState<ReadonlySet<string>>(new Set());
  const [failure, setFailure] = useState<unknown>(null);
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
  const instances = useInstances(stacks, template);
  const checks = useInstallChecks(schema.repo, schema.app, name, requestValues(template, values));
  /** What stops the user at a step's fields beyond their rules: a port in use, a host folder not allowed. */
  const blockedIn = (s: Step) =>
    s.kind === 'review' || (s.kind === 'group' && !groupEnabled(s.group, values))
      ? []
      : s.fields.flatMap((f) => {
          const why = checks.blocking(f.id);
          return why ? [{ id: f.id, why }] : [];
        });

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
    if (following.has(fid)) setFollowing((old) => new Map([...old].filter(([k]) => k !== fid)));
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

  const renameTo = (v: string) => {
    setName(v);
    setNameError(null);
    if (following.size > 0) setValues((old) => ({ ...old, ...Object.fromEntries([...following].map(([fid, text]) => [fid, fill(text, v)])) }));
  };

  /** Marks the refused fields of the given steps (the shared rules) and a bad or taken name; true when there are none. */
  const checkSteps = (which: Step[]): boolean => {
    const refused = which.flatMap((s) => problemsIn(s, values));
    const blocked = which.flatMap(blockedIn);
    const badName = which.some((s) => s.kind === 'main') && liveNameProblem !== null;
    setNameError(badName ? liveNameProblem : null);
    if (refused.length === 0 && blocked.length === 0 && !badName) return true;
    setStopped((old) => new Set([...old, ...blocked.map((b) => b.id)]));
    setErrors((old) => ({ ...old, ...Object.fromEntries(refused.map((r) => [r.field.id, issueText(r.issue)])) }));
    setMissing(refused.filter((r) => r.issue.code === 'required').map((r) => r.field.id));
    const stops = (s: Step) => problemsIn(s, values).length > 0 || blockedIn(s).length > 0 || (s.kind === 'main' && badName);
    const first = steps.findIndex((s) => which.includes(s) && stops(s));
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

  // A refusal is laid out by showRefusal (marks, the step that shows them), so the action keeps no error of its own.
  const install = useAction(async () => {
    setFailure(null);
    try {
      const confirm = checks.confirmed();
      const job = await installApp({
        repo: schema.repo,
        app: schema.app,
        name,
        values: requestValues(template, values),
        ...(confirm.length > 0 ? { confirm_outside_paths: confirm } : {}),
      });
      onStarted(job, name);
    } catch (e) {
      showRefusal(e);
    }
  });
  const { busy } = install;
  const submit = () => {
    if (checkSteps(steps)) void install.run();
  };

  /** The server is the authority: mark what it named and go to the first step that shows it. */
  const showRefusal = (e: unknown) => {
    if (!(e instanceof ApiError)) return setFailure(e);
    if (e.code === 'invalid_name' || e.code === 'name_taken' || e.fields.includes('name')) {
      // Said once, at the name field, which takes the focus.
      setNameError((e.code === 'invalid_name' ? nameProblem('app', name) : null) ?? errorText(e));
      if (current === 'main') focusFirstInvalid();
      else jumpTo('main');
      return;
    }
    const named = e.fields.filter((f) => f !== 'name');
    if (named.length === 0) return setFailure(e);
    const fieldOf = (fid: string) => allFields(template).find((x) => x.id === fid);
    setErrors(Object.fromEntries(named.map((f) => [f, refusedFieldText(e, fieldOf(f), values[f])])));
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
    if (step?.kind === 'review') submit();
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
        {step?.kind === 'main' && <NameField value={name} onInput={renameTo} error={nameError} live={name === '' ? null : liveNameProblem} />}
        {step && step.kind !== 'review' && (step.kind === 'main' || groupEnabled(step.group, values)) && (
          <Fields
            fields={step.fields}
            values={values}
            errors={errors}
            onChange={setValue}
            instances={instances}
            fill={fill}
            checks={checks}
            stopped={stopped}
          />
        )}
        {step?.kind === 'group' && !groupEnabled(step.group, values) && <p class="muted install-off">{t('install.group_off')}</p>}
        {step?.kind === 'review' && <PowersWarning repo={schema.repo} app={schema.app} values={requestValues(template, values)} />}
        {step?.kind === 'review' && <UnplacedFolders checks={checks} />}
        {step?.kind === 'review' && <ReviewStep name={name} steps={steps} values={values} onEdit={go} fill={fill} />}
        {step?.kind === 'review' && liveNameProblem && (
          <p class="field-error install-blocked" id={`${id}-blocked`}>
            {isValidName(name) ? t('install.name_blocked', { name }) : t('install.name_blocked_invalid')}
          </p>
        )}
        <div class="install-nav">
          {back ? (
            <button type="button" class="btn" onClick={() => go(stepKey(back))}>
              {t('install.back')}
            </button>
          ) : (
            <span />
          )}
          {step?.kind === 'review' ? (
            <button
              type="submit"
              class="btn btn-primary"
              aria-disabled={busy}
              disabled={liveNameProblem !== null}
              aria-describedby={liveNameProblem ? `${id}-blocked` : undefined}
            >
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

import { useMemo, useState } from 'preact/hooks';
import type { JobT, StackT } from '../../../shared/api.ts';
import { fillPlaceholders } from '../../../shared/placeholders.ts';
import type { FieldValue, TemplateFileT } from '../../../shared/template.ts';
import { ApiError } from '../../api.ts';
import { errorText } from '../../components/error-message.tsx';
import { useAction } from '../../components/use-action.ts';
import { useInstances } from '../../forms/connect-instances.ts';
import { nameProblem } from '../../forms/field-messages.ts';
import { issueText, refusedFieldText } from '../../forms/field-problem.ts';
import {
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
} from '../../forms/install-model.ts';
import { t } from '../../i18n.ts';
import { type AppSchemaT, installApp } from './install-api.ts';
import { useInstallChecks } from './install-checks.tsx';
import { usePowersReview } from './powers-review.tsx';
import { stepKey } from './step-title.ts';
import { focusFirstInvalid, useStepper } from './use-stepper.ts';

export interface InstallFormProps {
  schema: AppSchemaT;
  stacks: StackT[];
  onStarted: (job: JobT, name: string) => void;
}

/** The new app's name and values; values that follow the typed name ({name} in a default, the data folder) until the user edits them. */
function useNamedValues(schema: AppSchemaT, taken: string[]) {
  const { template } = schema;
  const [name, setName] = useState(() => freeName(schema.app, taken));
  const dataRoot = schema.data_root;
  const fill = (text: string, forName = name) => fillPlaceholders(text, { name: forName, dataRoot: dataRoot ?? '' });
  const [following, setFollowing] = useState(() => followers(template, startValues(template, schema.values), dataRoot));
  const [values, setValues] = useState<FormValues>(() => {
    const start = startValues(template, schema.values);
    for (const [fid, text] of following) start[fid] = fill(text);
    return start;
  });
  const setValue = (fid: string, v: FieldValue) => {
    if (following.has(fid)) setFollowing((old) => new Map([...old].filter(([k]) => k !== fid)));
    setValues((old) => ({ ...old, [fid]: v }));
  };
  const renameTo = (v: string) => {
    setName(v);
    if (following.size > 0) setValues((old) => ({ ...old, ...Object.fromEntries([...following].map(([fid, text]) => [fid, fill(text, v)])) }));
  };
  return { name, values, fill, setValue, renameTo };
}

/** What the form marks: refused fields, the name, the required ones still empty, a failure without a field. */
function useMarks() {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [nameError, setNameError] = useState<string | null>(null);
  const [missing, setMissing] = useState<string[]>([]);
  // Fields the user was stopped at for a reason beyond their rules (a port in use): said until that reason goes.
  const [stopped, setStopped] = useState<ReadonlySet<string>>(new Set());
  const [failure, setFailure] = useState<unknown>(null);
  return { errors, setErrors, nameError, setNameError, missing, setMissing, stopped, setStopped, failure, setFailure };
}

interface Judge {
  template: TemplateFileT;
  values: FormValues;
  name: string;
  stepper: ReturnType<typeof useStepper>;
  marks: ReturnType<typeof useMarks>;
  liveNameProblem: string | null;
  /** What stops the user at a step's fields beyond their rules: a port in use, a host folder not allowed. */
  blockedIn: (s: Step) => { id: string; why: string }[];
}

/** Marks the refused fields of the given steps (the shared rules) and a bad or taken name; true when there are none. */
function checkSteps(j: Judge, which: Step[]): boolean {
  const { marks: m, values } = j;
  const refused = which.flatMap((s) => problemsIn(s, values));
  const blocked = which.flatMap(j.blockedIn);
  const badName = which.some((s) => s.kind === 'main') && j.liveNameProblem !== null;
  m.setNameError(badName ? j.liveNameProblem : null);
  if (refused.length === 0 && blocked.length === 0 && !badName) return true;
  m.setStopped((old) => new Set([...old, ...blocked.map((b) => b.id)]));
  m.setErrors((old) => ({ ...old, ...Object.fromEntries(refused.map((r) => [r.field.id, issueText(r.issue)])) }));
  m.setMissing(refused.filter((r) => r.issue.code === 'required').map((r) => r.field.id));
  const stops = (s: Step) => problemsIn(s, values).length > 0 || j.blockedIn(s).length > 0 || (s.kind === 'main' && badName);
  const { steps } = j.stepper;
  j.stepper.showInvalid(steps[steps.findIndex((s) => which.includes(s) && stops(s))]);
  return false;
}

/** The server is the authority: mark what it named and go to the first step that shows it. */
function showRefusal(j: Judge, e: unknown) {
  const { marks: m, stepper } = j;
  if (!(e instanceof ApiError)) return m.setFailure(e);
  if (e.code === 'invalid_name' || e.code === 'name_taken' || e.fields.includes('name')) {
    // Said once, at the name field, which takes the focus.
    m.setNameError((e.code === 'invalid_name' ? nameProblem('app', j.name) : null) ?? errorText(e));
    if (stepper.current === 'main') focusFirstInvalid();
    else stepper.jumpTo('main');
    return;
  }
  const named = e.fields.filter((f) => f !== 'name');
  if (named.length === 0) return m.setFailure(e);
  const fieldOf = (fid: string) => allFields(j.template).find((x) => x.id === fid);
  m.setErrors(Object.fromEntries(named.map((f) => [f, refusedFieldText(e, fieldOf(f), j.values[f])])));
  if (e.code === 'required_fields') m.setMissing(named);
  else m.setFailure(e);
  // A field behind the advanced switch is shown, so it can be filled in.
  let all = stepper.steps;
  if (stepOf(all, named) < 0) {
    all = buildSteps(j.template, true);
    stepper.setAdvanced(true);
  }
  stepper.showInvalid(all[stepOf(all, named)]);
}

/** The install form's state: the name and values, the steps, the marks, the checks while typing, and the install. */
export function useInstallForm({ schema, stacks, onStarted }: InstallFormProps) {
  const { template } = schema;
  const taken = useMemo(() => stacks.map((s) => s.name), [stacks]);
  const named = useNamedValues(schema, taken);
  const { name, values } = named;
  const stepper = useStepper(template);
  const marks = useMarks();
  const instances = useInstances(stacks, template);
  const checks = useInstallChecks(schema.repo, schema.app, name, requestValues(template, values));
  const powers = usePowersReview(schema.repo, schema.app, requestValues(template, values), checks, stepper.step?.kind === 'review');
  const liveNameProblem = !isValidName(name) ? t('install.name_invalid') : taken.includes(name) ? t('install.name_taken', { name }) : null;
  const blockedIn = (s: Step) =>
    s.kind === 'review' || (s.kind === 'group' && !groupEnabled(s.group, values))
      ? []
      : s.fields.flatMap((f) => {
          const why = checks.blocking(f.id);
          return why ? [{ id: f.id, why }] : [];
        });
  const judge: Judge = { template, values, name, stepper, marks, liveNameProblem, blockedIn };

  const setValue = (fid: string, v: FieldValue) => {
    named.setValue(fid, v);
    if (marks.errors[fid]) {
      const { [fid]: _gone, ...rest } = marks.errors;
      marks.setErrors(rest);
    }
  };
  const renameTo = (v: string) => {
    named.renameTo(v);
    marks.setNameError(null);
  };
  const go = (key: string) => {
    marks.setMissing([]);
    marks.setFailure(null);
    stepper.setCurrent(key);
  };
  const setAdvanced = (on: boolean) => {
    stepper.setAdvanced(on);
    // A step that disappears with the switch gives way to the first one.
    if (!on && !buildSteps(template, false).some((s) => stepKey(s) === stepper.current)) go('main');
  };

  // A refusal is laid out by showRefusal (marks, the step that shows them), so the action keeps no error of its own.
  const install = useAction(async () => {
    marks.setFailure(null);
    try {
      const confirm = checks.confirmed();
      const body = { repo: schema.repo, app: schema.app, name, values: requestValues(template, values) };
      onStarted(await installApp(confirm.length > 0 ? { ...body, confirm_outside_paths: confirm } : body), name);
    } catch (e) {
      showRefusal(judge, e);
    }
  });
  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (install.busy) return;
    const { step, steps, index } = stepper;
    if (step?.kind === 'review') {
      if (!powers.blocked && checkSteps(judge, steps)) void install.run();
    } else if (checkSteps(judge, [step as Step])) {
      const following = steps[index + 1];
      if (following) go(stepKey(following));
    }
  };
  // The summary shrinks as fields are filled in; a field's mark goes with its first change.
  const stillMissing = marks.missing.filter((fid) => marks.errors[fid] !== undefined);
  return {
    ...named,
    ...marks,
    stepper,
    instances,
    checks,
    powers,
    liveNameProblem,
    busy: install.busy,
    stillMissing,
    setValue,
    renameTo,
    go,
    setAdvanced,
    onSubmit,
  };
}

import { useMemo, useRef, useState } from 'preact/hooks';
import type { JobT } from '../../../../shared/api.ts';
import type { FieldValue, TemplateFileT } from '../../../../shared/template.ts';
import { ApiError } from '../../../api.ts';
import { outsidePaths } from '../../../components/outside-paths.ts';
import { useAction } from '../../../components/use-action.ts';
import { refusedFieldText } from '../../../forms/field-problem.ts';
import { allFields, buildSteps, type FormValues, startValues, toggleId } from '../../../forms/install-model.ts';
import { t } from '../../../i18n.ts';
import { reconfigure, type StackConfigT } from './configure-api.ts';
import { type ExtraProblem, type ExtrasState, extraProblems, missingFields, reconfigureBody, startExtras } from './configure-model.ts';

export type SchemaConfig = StackConfigT & { schema: NonNullable<StackConfigT['schema']> };

const PROBLEM_KEYS = { required: 'install.required_field', absolute: 'configure.path_absolute', device: 'configure.device_path' } as const;
const problemText = (p: ExtraProblem): string => t(PROBLEM_KEYS[p]);

/** Without the marks whose keys `gone` names; the same object when none goes. */
const without = (errors: Record<string, string>, gone: (key: string) => boolean) =>
  Object.keys(errors).some(gone) ? Object.fromEntries(Object.entries(errors).filter(([k]) => !gone(k))) : errors;

/** The stored values, the secrets kept as they are, the extras per service, and the marks on them. */
function useConfigureValues(config: SchemaConfig, form: { current: HTMLFormElement | null }) {
  const template: TemplateFileT = config.schema.template;
  const fieldIds = useMemo(() => new Set(allFields(template).map((f) => f.id)), [template]);
  const [values, setValues] = useState<FormValues>(() => startValues(template, config.values));
  const [kept, setKept] = useState<ReadonlySet<string>>(() => new Set(config.secrets_hidden.filter((f) => fieldIds.has(f))));
  const start = useMemo(() => startExtras(config.services), [config]);
  const [extras, setExtras] = useState<ExtrasState>(start);
  const [errors, setErrors] = useState<Record<string, string>>({});

  const setValue = (fid: string, v: FieldValue) => {
    setValues((old) => ({ ...old, [fid]: v }));
    // A group switched off takes its fields' marks along: they need no value then.
    const off = v === false ? template.groups.find((g) => g.toggle && toggleId(g.id) === fid) : undefined;
    const gone = new Set([fid, ...(off?.fields.map((f) => f.id) ?? [])]);
    setErrors(without(errors, (k) => gone.has(k)));
  };
  const keep = (fid: string, on: boolean) => {
    const next = new Set(kept);
    if (on) next.add(fid);
    else next.delete(fid);
    setKept(next);
    setErrors(without(errors, (k) => k === fid));
    if (!on) setValues((old) => ({ ...old, [fid]: '' }));
    // The control that replaces the button takes the focus.
    setTimeout(() => {
      const target = on ? `[data-field="${fid}"] button` : `[name="${fid}"]`;
      (form.current?.querySelector(target) as HTMLElement | null)?.focus();
    }, 0);
  };
  const changeExtras = (service: string, change: Partial<ExtrasState[string]>) => {
    setExtras((old) => {
      const cur = old[service];
      return cur ? { ...old, [service]: { ...cur, ...change } } : old;
    });
    // A changed list renumbers its rows, so the marks of that service go with any change.
    const prefix = `services.${service}.`;
    setErrors(without(errors, (k) => k.startsWith(prefix)));
  };
  return { template, fieldIds, values, kept, start, extras, errors, setErrors, setValue, keep, changeExtras };
}

/** The Configure form's state: the values and extras, their marks, the form's own check, and the reconfigure job it starts. */
export function useConfigureForm(stack: string, config: SchemaConfig, onStarted: (job: JobT) => void) {
  const form = useRef<HTMLFormElement>(null);
  const v = useConfigureValues(config, form);
  const { template, fieldIds } = v;
  const [advanced, setAdvanced] = useState(false);
  const [missing, setMissing] = useState<string[]>([]);
  const [failure, setFailure] = useState<unknown>(null);
  // Host folders outside the app an admin is asked to allow (a forbidden_path refusal's `confirm`), then applied again.
  const [outside, setOutside] = useState<string[] | null>(null);

  /** Marks fields (template ids or extras addresses); opens the advanced settings when a marked field lives there. */
  const mark = (marks: Record<string, string>) => {
    v.setErrors(marks);
    const visible = new Set(buildSteps(template, false).flatMap((s) => (s.kind === 'review' ? [] : s.fields.map((f) => f.id))));
    if (Object.keys(marks).some((k) => fieldIds.has(k) && !visible.has(k))) setAdvanced(true);
    // The first control this mark named takes the focus; others may be marked by their own checks (a port in use).
    const names = new Set(Object.keys(marks));
    setTimeout(() => {
      const all = form.current?.querySelectorAll<HTMLInputElement>('[aria-invalid="true"]') ?? [];
      Array.from(all)
        .find((el) => names.has(el.name))
        ?.focus();
    }, 0);
  };

  /** The form's own check, before anything is sent: empty required fields and half-filled extras. */
  const check = (): boolean => {
    const empty = missingFields(template, v.values, v.kept).map((f) => f.id);
    const problems = extraProblems(v.extras);
    if (empty.length === 0 && Object.keys(problems).length === 0) return true;
    setMissing(empty);
    mark({
      ...Object.fromEntries(empty.map((f) => [f, t('install.required_field')])),
      ...Object.fromEntries(Object.entries(problems).map(([k, p]) => [k, problemText(p)])),
    });
    return false;
  };

  /** The server is the authority: what it names is marked where it was typed. */
  const showRefusal = (e: unknown) => {
    if (!(e instanceof ApiError) || e.fields.length === 0) return setFailure(e);
    if (e.code === 'forbidden_path') setOutside(outsidePaths(e));
    if (e.code === 'forbidden_path') return mark(Object.fromEntries(e.fields.map((f) => [f, refusedFieldText(e, undefined, undefined)])));
    if (e.code === 'required_fields') setMissing(e.fields.filter((f) => fieldIds.has(f)));
    else setFailure(e);
    const fieldOf = (fid: string) => allFields(template).find((x) => x.id === fid);
    mark(Object.fromEntries(e.fields.map((f) => [f, refusedFieldText(e, fieldOf(f), v.values[f])])));
  };

  // A refusal is laid out by showRefusal (marks, the advanced settings opened), so the action keeps no error of its own.
  const apply = useAction(async (confirm?: string[]) => {
    setOutside(null);
    try {
      const body = reconfigureBody(template, v.values, v.kept, v.extras, v.start);
      onStarted(await reconfigure(stack, confirm ? { ...body, confirm_outside_paths: confirm } : body));
    } catch (err) {
      showRefusal(err);
    }
  });
  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (apply.busy) return;
    setFailure(null);
    setMissing([]);
    if (!check()) return;
    v.setErrors({});
    void apply.run();
  };
  const stillMissing = missing.filter((fid) => v.errors[fid] !== undefined);
  return { ...v, form, advanced, setAdvanced, failure, outside, setOutside, stillMissing, apply, onSubmit };
}

import { useId, useMemo, useRef, useState } from 'preact/hooks';
import type { JobT } from '../../../../shared/api.ts';
import type { FieldValue, TemplateFileT } from '../../../../shared/template.ts';
import { ApiError } from '../../../api.ts';
import { AlertBox, ErrorMessage } from '../../../components/error-message.tsx';
import { OutsideConfirm } from '../../../components/outside-confirm.tsx';
import { outsidePaths } from '../../../components/outside-paths.ts';
import { useAction } from '../../../components/use-action.ts';
import type { Instance } from '../../../forms/connect-field.tsx';
import { refusedFieldText } from '../../../forms/field-problem.ts';
import { advancedCount, allFields, buildSteps, type FormValues, startValues, textIn, toggleId } from '../../../forms/install-model.ts';
import { getLang, t } from '../../../i18n.ts';
import { type DeviceT, type RunningT, reconfigure, type StackConfigT } from './configure-api.ts';
import { type ExtraProblem, type ExtrasState, extraProblems, missingFields, reconfigureBody, startExtras, tagOf } from './configure-model.ts';
import { ServiceExtras } from './service-extras.tsx';
import { ValueSections } from './value-sections.tsx';

interface Props {
  stack: string;
  config: StackConfigT & { schema: NonNullable<StackConfigT['schema']> };
  instances: (app: string) => Instance[];
  devices: DeviceT[] | null;
  running: RunningT | null;
  onStarted: (job: JobT) => void;
  /** Back to the stored settings: the tab mounts a fresh form. */
  onReset: () => void;
}

/** Fills {name} with the app's own name; the data placeholders stay, since this form does not know DATA_DIR. */
const nameFiller = (stack: string) => (text: string) => text.replaceAll('{name}', stack);

const PROBLEM_KEYS = { required: 'install.required_field', absolute: 'configure.path_absolute', device: 'configure.device_path' } as const;
const problemText = (p: ExtraProblem): string => t(PROBLEM_KEYS[p]);

/** The template's form filled with the stored values, the extras per service, and the button that applies them. */
export function ConfigureForm({ stack, config, instances, devices, running, onStarted, onReset }: Props) {
  const id = useId();
  const template: TemplateFileT = config.schema.template;
  const form = useRef<HTMLFormElement>(null);
  const fieldIds = useMemo(() => new Set(allFields(template).map((f) => f.id)), [template]);
  const [values, setValues] = useState<FormValues>(() => startValues(template, config.values));
  const [kept, setKept] = useState<ReadonlySet<string>>(() => new Set(config.secrets_hidden.filter((f) => fieldIds.has(f))));
  const start = useMemo(() => startExtras(config.services), [config]);
  const [extras, setExtras] = useState<ExtrasState>(start);
  const [advanced, setAdvanced] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [missing, setMissing] = useState<string[]>([]);
  const [failure, setFailure] = useState<unknown>(null);
  // Host folders outside the app an admin is asked to allow (a forbidden_path refusal's `confirm`), then applied again.
  const [outside, setOutside] = useState<string[] | null>(null);
  const templateTags = useMemo(() => Object.fromEntries(config.services.map((s) => [s.name, s.tag === null ? tagOf(s.image) : null])), [config]);
  const hiddenCount = advancedCount(template);
  const fillName = useMemo(() => nameFiller(stack), [stack]);

  const clearError = (key: string) => {
    if (errors[key] === undefined) return;
    const { [key]: _gone, ...rest } = errors;
    setErrors(rest);
  };
  const setValue = (fid: string, v: FieldValue) => {
    setValues((old) => ({ ...old, [fid]: v }));
    // A group switched off takes its fields' marks along: they need no value then.
    const off = v === false ? template.groups.find((g) => g.toggle && toggleId(g.id) === fid) : undefined;
    const gone = new Set([fid, ...(off?.fields.map((f) => f.id) ?? [])]);
    if (Object.keys(errors).some((k) => gone.has(k))) setErrors(Object.fromEntries(Object.entries(errors).filter(([k]) => !gone.has(k))));
  };
  const keep = (fid: string, on: boolean) => {
    const next = new Set(kept);
    if (on) next.add(fid);
    else next.delete(fid);
    setKept(next);
    clearError(fid);
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
    if (Object.keys(errors).some((k) => k.startsWith(prefix))) setErrors(Object.fromEntries(Object.entries(errors).filter(([k]) => !k.startsWith(prefix))));
  };

  // The first control this mark named takes the focus; others may be marked by their own checks (a port in use).
  const focusFirst = (names: ReadonlySet<string>) =>
    setTimeout(() => {
      const all = form.current?.querySelectorAll<HTMLInputElement>('[aria-invalid="true"]') ?? [];
      Array.from(all)
        .find((el) => names.has(el.name))
        ?.focus();
    }, 0);

  /** Marks fields (template ids or extras addresses); opens the advanced settings when a marked field lives there. */
  const mark = (marks: Record<string, string>) => {
    setErrors(marks);
    const visible = new Set(buildSteps(template, false).flatMap((s) => (s.kind === 'review' ? [] : s.fields.map((f) => f.id))));
    if (Object.keys(marks).some((k) => fieldIds.has(k) && !visible.has(k))) setAdvanced(true);
    focusFirst(new Set(Object.keys(marks)));
  };

  /** The form's own check, before anything is sent: empty required fields and half-filled extras. */
  const check = (): boolean => {
    const empty = missingFields(template, values, kept).map((f) => f.id);
    const problems = extraProblems(extras);
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
    mark(Object.fromEntries(e.fields.map((f) => [f, refusedFieldText(e, fieldOf(f), values[f])])));
  };

  // A refusal is laid out by showRefusal (marks, the advanced settings opened), so the action keeps no error of its own.
  const apply = useAction(async (confirm?: string[]) => {
    setOutside(null);
    try {
      const body = reconfigureBody(template, values, kept, extras, start);
      onStarted(await reconfigure(stack, confirm ? { ...body, confirm_outside_paths: confirm } : body));
    } catch (err) {
      showRefusal(err);
    }
  });
  const { busy } = apply;
  const onSubmit = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    setFailure(null);
    setMissing([]);
    if (!check()) return;
    setErrors({});
    void apply.run();
  };

  const labelOf = (fid: string) => {
    const f = allFields(template).find((x) => x.id === fid);
    return f ? textIn(f.label, getLang()) : fid;
  };
  const stillMissing = missing.filter((fid) => errors[fid] !== undefined);
  return (
    <form ref={form} class="card configure-form install-form" onSubmit={onSubmit} noValidate aria-labelledby={`${id}-h`}>
      <div class="configure-form-head">
        <h2 id={`${id}-h`}>{t('configure.heading')}</h2>
        {hiddenCount > 0 && (
          <label class="switch" for={`${id}-adv`}>
            <input
              id={`${id}-adv`}
              type="checkbox"
              role="switch"
              checked={advanced}
              aria-checked={advanced}
              onChange={(ev) => setAdvanced(ev.currentTarget.checked)}
            />
            <span class="switch-track" aria-hidden="true" />
            <span class="switch-label">{t('install.advanced', { count: hiddenCount })}</span>
          </label>
        )}
      </div>
      {stillMissing.length > 0 && (
        <AlertBox>
          <p>{t('install.missing', { fields: stillMissing.map(labelOf).join(', ') })}</p>
        </AlertBox>
      )}
      <ErrorMessage error={failure} />
      {outside && (
        <OutsideConfirm
          title={t('configure.outside_confirm', { name: stack })}
          yes={busy ? t('configure.applying') : t('configure.outside_yes')}
          paths={outside}
          onYes={() => void apply.run(outside)}
          onNo={() => setOutside(null)}
        >
          <p>{t('configure.outside_intro')}</p>
        </OutsideConfirm>
      )}
      <ValueSections
        template={template}
        advanced={advanced}
        values={values}
        errors={errors}
        kept={kept}
        hidden={config.secrets_hidden}
        onChange={setValue}
        onKeep={keep}
        instances={instances}
        own={running?.containers ?? []}
        fill={fillName}
      />
      <ServiceExtras
        stack={stack}
        services={config.services}
        extras={extras}
        templateTags={templateTags}
        onChange={changeExtras}
        errors={errors}
        devices={devices}
        running={running?.images ?? null}
      />
      <p class="hint configure-apply-hint">{t('configure.apply_hint')}</p>
      <div class="install-nav">
        <button type="button" class="btn" onClick={onReset}>
          {t('configure.reset')}
        </button>
        <button type="submit" class="btn btn-primary" aria-disabled={busy}>
          {busy ? t('configure.applying') : t('configure.apply')}
        </button>
      </div>
    </form>
  );
}

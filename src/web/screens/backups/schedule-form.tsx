import { useEffect, useState } from 'preact/hooks';
import { SCHEDULE_MODES } from '../../../shared/settings-keys.ts';
import { formatWhen } from '../../components/backup-format.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { useAction } from '../../components/use-action.ts';
import { SelectField, TextField } from '../../forms/field.tsx';
import { refusalMarks, stillSays } from '../../forms/field-messages.ts';
import { getLang, t } from '../../i18n.ts';
import { type BackupScheduleT, type BackupScheduleUpdateT, putSchedule } from './backups-api.ts';
import {
  hourText,
  type ScheduleField,
  type ScheduleForm,
  type ScheduleProblem,
  scheduleProblems,
  toScheduleForm,
  toScheduleUpdate,
  weekdayNames,
} from './schedule-model.ts';

const locale = () => (getLang() === 'nl' ? 'nl-NL' : 'en-GB');
const HOURS = Array.from({ length: 24 }, (_, h) => h);

/** When scheduled rounds run and how long backups are kept: admins edit it, everyone else reads it. */
export function ScheduleCard({
  schedule,
  error,
  canEdit,
  onSaved,
}: {
  schedule: BackupScheduleT | null;
  error: unknown;
  canEdit: boolean;
  onSaved: (s: BackupScheduleT) => void;
}) {
  return (
    <section class="card backups-card" aria-labelledby="backups-schedule">
      <h2 id="backups-schedule">{t('backups.schedule.title')}</h2>
      <p class="muted small">{t('backups.schedule.intro')}</p>
      <ErrorMessage error={error} />
      {schedule === null && !error && <p class="muted">{t('backups.schedule.loading')}</p>}
      {schedule && <NextRun schedule={schedule} />}
      {schedule && (canEdit ? <ScheduleEditor schedule={schedule} onSaved={onSaved} /> : <ScheduleFacts schedule={schedule} />)}
    </section>
  );
}

function NextRun({ schedule: s }: { schedule: BackupScheduleT }) {
  return (
    <p class="schedule-next">
      {s.mode !== 'off' && s.next_run ? t('backups.schedule.next', { time: formatWhen(s.next_run, getLang()) }) : t('backups.schedule.off_note')}
    </p>
  );
}

/** The schedule in words, for those who may not change it. */
function ScheduleFacts({ schedule: s }: { schedule: BackupScheduleT }) {
  const days = weekdayNames(locale());
  const when =
    s.mode === 'weekly'
      ? t('backups.schedule.weekly_at', { day: days[s.day] ?? String(s.day), hour: hourText(s.hour) })
      : s.mode === 'daily'
        ? t('backups.schedule.daily_at', { hour: hourText(s.hour) })
        : t('backups.schedule.mode.off');
  return (
    <>
      <dl class="schedule-facts">
        <div>
          <dt>{t('backups.schedule.when')}</dt>
          <dd>{when}</dd>
        </div>
        <div>
          <dt>{t('backups.schedule.count')}</dt>
          <dd>{s.retention_count === 0 ? t('backups.schedule.no_limit') : s.retention_count}</dd>
        </div>
        <div>
          <dt>{t('backups.schedule.days')}</dt>
          <dd>{s.retention_days === 0 ? t('backups.schedule.no_limit') : t('backups.schedule.days_value', { days: s.retention_days })}</dd>
        </div>
      </dl>
      <p class="muted small">{t('backups.schedule.admins_only')}</p>
    </>
  );
}

/** The two limits of what is kept, with their labels and hints. */
const RETENTION = [
  ['retention_count', 'backups.schedule.count', 'backups.schedule.count_hint'],
  ['retention_days', 'backups.schedule.days', 'backups.schedule.days_hint'],
] as const;

const problemText = (p: ScheduleProblem | undefined): string | null => {
  if (!p) return null;
  if (p.kind === 'required') return t('field.required');
  return p.kind === 'whole' ? t('check.whole_number') : t('check.between', { min: p.min, max: p.max });
};

function ScheduleEditor({ schedule, onSaved }: { schedule: BackupScheduleT; onSaved: (s: BackupScheduleT) => void }) {
  const [form, setForm] = useState<ScheduleForm>(() => toScheduleForm(schedule));
  const [sent, setSent] = useState<ScheduleForm | null>(null);
  // A schedule read again (the poll, another admin) replaces the form only while nothing is being edited.
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (!dirty) setForm(toScheduleForm(schedule));
  }, [schedule, dirty]);
  const save = useAction(async (body: BackupScheduleUpdateT) => {
    setSent(form);
    const s = await putSchedule(body);
    setDirty(false);
    setForm(toScheduleForm(s));
    onSaved(s);
    return true;
  });

  const set = (k: keyof ScheduleForm, v: string) => {
    setForm((f) => ({ ...f, [k]: v }));
    setDirty(true);
    if (save.result) save.reset();
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const { body } = toScheduleUpdate(form);
    if (body) void save.run(body);
  };
  // What is wrong now, while typing; the server's word on a field while it holds what was sent.
  const live = scheduleProblems(form);
  const refused = refusalMarks(save.error, { known: ['mode', 'day', 'hour', 'retention_count', 'retention_days'] });
  const errorOf = (k: ScheduleField) => problemText(live[k]) ?? (sent ? stillSays(refused.marks, sent, k, form[k]) : null);
  return (
    <form class="schedule-form" onSubmit={submit} noValidate aria-busy={save.busy}>
      <ScheduleFields form={form} set={set} errorOf={errorOf} />
      <ErrorMessage error={refused.rest} onDismiss={save.reset} />
      <div class="schedule-save">
        <button type="submit" class="btn btn-primary" aria-disabled={save.busy}>
          {save.busy ? t('backups.schedule.saving') : t('backups.schedule.save')}
        </button>
        <p role="status" class="schedule-saved">
          {save.result && !dirty ? t('backups.schedule.saved') : ''}
        </p>
      </div>
    </form>
  );
}

/** When the backups run (off, daily, weekly), the day and the hour, and how many are kept. */
function ScheduleFields({
  form,
  set,
  errorOf,
}: {
  form: ScheduleForm;
  set: (k: keyof ScheduleForm, v: string) => void;
  errorOf: (k: ScheduleField) => string | null;
}) {
  const days = weekdayNames(locale());
  return (
    <>
      <fieldset class="schedule-modes">
        <legend>{t('backups.schedule.when')}</legend>
        {SCHEDULE_MODES.map((m) => (
          <label key={m} class="schedule-mode">
            <input type="radio" name="mode" value={m} checked={form.mode === m} onChange={() => set('mode', m)} />
            {t(`backups.schedule.mode.${m}`)}
          </label>
        ))}
      </fieldset>
      <div class="schedule-fields">
        {form.mode === 'weekly' && (
          <SelectField
            label={t('backups.schedule.day')}
            name="day"
            value={form.day}
            onChange={(v) => set('day', v)}
            error={errorOf('day')}
            options={days.map((name, i) => ({ value: String(i), label: name }))}
          />
        )}
        {form.mode !== 'off' && (
          <SelectField
            label={t('backups.schedule.hour')}
            name="hour"
            value={form.hour}
            onChange={(v) => set('hour', v)}
            error={errorOf('hour')}
            hint={t('backups.schedule.hour_hint')}
            options={HOURS.map((h) => ({ value: String(h), label: hourText(h) }))}
          />
        )}
        {RETENTION.map(([k, label, hint]) => (
          <TextField
            key={k}
            label={t(label)}
            name={k}
            hint={t(hint)}
            inputMode="numeric"
            narrow
            value={form[k]}
            error={errorOf(k)}
            onInput={(v) => set(k, v)}
          />
        ))}
      </div>
    </>
  );
}

import { useEffect, useId, useState } from 'preact/hooks';
import { SCHEDULE_MODES } from '../../../shared/settings-keys.ts';
import { formatWhen } from '../../components/backup-format.ts';
import { ErrorMessage, errorFields } from '../../components/error-message.tsx';
import { getLang, t } from '../../i18n.ts';
import { type BackupScheduleT, putSchedule } from './backups-api.ts';
import { hourText, type ScheduleField, type ScheduleForm, toScheduleForm, toScheduleUpdate, weekdayNames } from './schedule-model.ts';

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

function ScheduleEditor({ schedule, onSaved }: { schedule: BackupScheduleT; onSaved: (s: BackupScheduleT) => void }) {
  const [form, setForm] = useState<ScheduleForm>(() => toScheduleForm(schedule));
  const [bad, setBad] = useState<Set<string>>(new Set());
  const [state, setState] = useState<'idle' | 'saving' | 'saved'>('idle');
  const [error, setError] = useState<unknown>(null);
  const id = useId();
  // A schedule read again (the poll, another admin) replaces the form only while nothing is being edited.
  const [dirty, setDirty] = useState(false);
  useEffect(() => {
    if (!dirty) setForm(toScheduleForm(schedule));
  }, [schedule, dirty]);

  const set = (k: keyof ScheduleForm, v: string) => {
    setForm((f) => ({ ...f, [k]: v }));
    setDirty(true);
    if (state === 'saved') setState('idle');
  };
  const save = async (e: Event) => {
    e.preventDefault();
    if (state === 'saving') return;
    const { body, bad: wrong } = toScheduleUpdate(form);
    setBad(new Set(wrong));
    setError(null);
    if (!body) return;
    setState('saving');
    try {
      const s = await putSchedule(body);
      setDirty(false);
      setForm(toScheduleForm(s));
      setState('saved');
      onSaved(s);
    } catch (err) {
      setBad(new Set(errorFields(err)));
      setError(err);
      setState('idle');
    }
  };
  const days = weekdayNames(locale());
  const invalid = (k: ScheduleField) => (bad.has(k) ? 'true' : undefined);

  return (
    <form class="schedule-form" onSubmit={(e) => void save(e)} noValidate aria-busy={state === 'saving'}>
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
          <div class="field">
            <label for={`${id}-day`}>{t('backups.schedule.day')}</label>
            <select id={`${id}-day`} value={form.day} onChange={(e) => set('day', e.currentTarget.value)} aria-invalid={invalid('day')}>
              {days.map((name, i) => (
                <option key={name} value={String(i)}>
                  {name}
                </option>
              ))}
            </select>
          </div>
        )}
        {form.mode !== 'off' && (
          <div class="field">
            <label for={`${id}-hour`}>{t('backups.schedule.hour')}</label>
            <select
              id={`${id}-hour`}
              value={form.hour}
              onChange={(e) => set('hour', e.currentTarget.value)}
              aria-invalid={invalid('hour')}
              aria-describedby={`${id}-hour-hint`}
            >
              {HOURS.map((h) => (
                <option key={h} value={String(h)}>
                  {hourText(h)}
                </option>
              ))}
            </select>
            <p class="hint" id={`${id}-hour-hint`}>
              {t('backups.schedule.hour_hint')}
            </p>
          </div>
        )}
        <NumberField
          id={`${id}-count`}
          label={t('backups.schedule.count')}
          hint={t('backups.schedule.count_hint')}
          value={form.retention_count}
          invalid={invalid('retention_count')}
          onInput={(v) => set('retention_count', v)}
        />
        <NumberField
          id={`${id}-days`}
          label={t('backups.schedule.days')}
          hint={t('backups.schedule.days_hint')}
          value={form.retention_days}
          invalid={invalid('retention_days')}
          onInput={(v) => set('retention_days', v)}
        />
      </div>
      {bad.size > 0 && !error && (
        <p class="error" role="alert">
          {t('backups.schedule.invalid')}
        </p>
      )}
      <ErrorMessage error={error} onDismiss={() => setError(null)} />
      <div class="schedule-save">
        <button type="submit" class="btn btn-primary" aria-disabled={state === 'saving'}>
          {state === 'saving' ? t('backups.schedule.saving') : t('backups.schedule.save')}
        </button>
        <p role="status" class="schedule-saved">
          {state === 'saved' ? t('backups.schedule.saved') : ''}
        </p>
      </div>
    </form>
  );
}

interface NumberProps {
  id: string;
  label: string;
  hint: string;
  value: string;
  invalid: 'true' | undefined;
  onInput: (v: string) => void;
}

/** Text with a numeric keyboard, so any input reaches the check and is named when it is wrong. */
function NumberField({ id, label, hint, value, invalid, onInput }: NumberProps) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        class="narrow"
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        autocomplete="off"
        aria-invalid={invalid}
        aria-describedby={`${id}-hint`}
      />
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
    </div>
  );
}

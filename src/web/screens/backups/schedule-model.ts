import type { BackupScheduleT, BackupScheduleUpdateT } from './backups-api.ts';

/** The schedule form as typed: every value a string until it is sent. */
export interface ScheduleForm {
  mode: BackupScheduleT['mode'];
  day: string;
  hour: string;
  retention_count: string;
  retention_days: string;
}
export type ScheduleField = Exclude<keyof ScheduleForm, 'mode'>;

/** The limits of BackupSchedule in src/shared/backups.ts. */
const LIMITS: Record<ScheduleField, [number, number]> = {
  day: [0, 6],
  hour: [0, 23],
  retention_count: [0, 1000],
  retention_days: [0, 3650],
};

export const toScheduleForm = (s: BackupScheduleT): ScheduleForm => ({
  mode: s.mode,
  day: String(s.day),
  hour: String(s.hour),
  retention_count: String(s.retention_count),
  retention_days: String(s.retention_days),
});

/** The PUT body, or the fields that are not whole numbers within their limits (the server checks the same). */
export function toScheduleUpdate(f: ScheduleForm): { body: BackupScheduleUpdateT; bad: [] } | { body: null; bad: ScheduleField[] } {
  const bad: ScheduleField[] = [];
  const nums = {} as Record<ScheduleField, number>;
  for (const k of Object.keys(LIMITS) as ScheduleField[]) {
    const text = f[k].trim();
    const [min, max] = LIMITS[k];
    const n = Number(text);
    if (!/^\d+$/.test(text) || n < min || n > max) bad.push(k);
    else nums[k] = n;
  }
  if (bad.length > 0) return { body: null, bad };
  return { body: { mode: f.mode, ...nums }, bad: [] };
}

/** Why a field as typed cannot be sent: empty, not a whole number, or outside its limits. */
export type ScheduleProblem = { kind: 'required' } | { kind: 'whole' } | { kind: 'range'; min: number; max: number };

/** What is wrong with each field as typed (the server checks the same); the form says it in the user's language. */
export function scheduleProblems(f: ScheduleForm): Partial<Record<ScheduleField, ScheduleProblem>> {
  const out: Partial<Record<ScheduleField, ScheduleProblem>> = {};
  for (const k of Object.keys(LIMITS) as ScheduleField[]) {
    const text = f[k].trim();
    const [min, max] = LIMITS[k];
    const n = Number(text);
    if (text === '') out[k] = { kind: 'required' };
    else if (!/^\d+$/.test(text)) out[k] = { kind: 'whole' };
    else if (n < min || n > max) out[k] = { kind: 'range', min, max };
  }
  return out;
}

/** `03:00`: the hour of the day as a clock shows it. */
export const hourText = (hour: number): string => `${String(hour).padStart(2, '0')}:00`;

/** Weekday names in the language, 0 = Sunday, as the schedule counts. */
export function weekdayNames(locale: string): string[] {
  const fmt = new Intl.DateTimeFormat(locale, { weekday: 'long', timeZone: 'UTC' });
  // 4 January 1970 was a Sunday.
  return Array.from({ length: 7 }, (_, i) => fmt.format(new Date(Date.UTC(1970, 0, 4 + i))));
}

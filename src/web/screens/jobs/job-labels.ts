import type { JobT } from '../../../shared/api.ts';
import { t } from '../../i18n.ts';

export const stateLabel = (state: JobT['state']): string => t(`jobs.state.${state}`);

/** How long a job ran (or runs), in whole seconds, minutes or hours. */
export function durationText(j: JobT, now = Date.now()): string {
  const end = j.ended_at ? Date.parse(j.ended_at) : now;
  const s = Math.max(0, Math.round((end - Date.parse(j.started_at)) / 1000));
  if (s < 60) return t('jobs.duration.s', { n: s });
  if (s < 3600) return t('jobs.duration.m', { n: Math.round(s / 60) });
  return t('jobs.duration.h', { n: (s / 3600).toFixed(1) });
}

import { type Step, textIn } from '../../forms/install-model.ts';
import { getLang, t } from '../../i18n.ts';

/** A stable key of a step, so the current step survives the advanced switch adding or removing others. */
export const stepKey = (s: Step): string => (s.kind === 'group' ? `group:${s.group.id}` : s.kind);

export function stepTitle(s: Step): string {
  if (s.kind === 'main') return t('install.step_main');
  if (s.kind === 'review') return t('install.step_review');
  return textIn(s.group.label, getLang());
}

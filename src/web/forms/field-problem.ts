import { checkField, type RuleIssue } from '../../shared/field-rules.ts';
import type { FieldValue, TemplateFieldT } from '../../shared/template.ts';
import { type MessageKey, t } from '../i18n.ts';

/** The sentence for a refused value, in the current language. */
export const issueText = (i: RuleIssue): string => t(`field.${i.code}` as MessageKey, i.params);

/**
 * What is wrong with a value while it is typed: the shared rules the server applies, except that an
 * empty required field is only marked once the user tries to go on (`withRequired`).
 */
export function fieldProblem(f: TemplateFieldT, v: FieldValue | undefined, opts: { enabled?: boolean; withRequired?: boolean } = {}): string | null {
  const i = checkField(f, v, opts.enabled ?? true);
  if (!i || (i.code === 'required' && !opts.withRequired)) return null;
  return issueText(i);
}

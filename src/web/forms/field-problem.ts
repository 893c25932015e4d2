import { checkField, type RuleIssue } from '../../shared/field-rules.ts';
import type { FieldValue, TemplateFieldT } from '../../shared/template.ts';
import type { ApiError } from '../api.ts';
import { errorText } from '../components/error-message.tsx';
import { forbiddenText } from '../components/forbidden-text.ts';
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

/**
 * What a template form says at a field the server named: Kade's own words for the refusal, never the server's
 * English detail. A value the shared rules refuse gets their sentence; a host path its rule.
 */
export function refusedFieldText(e: ApiError, f: TemplateFieldT | undefined, v: FieldValue | undefined): string {
  if (e.code === 'required_fields') return t('install.required_field');
  if (e.code === 'forbidden_path') return forbiddenText(e.params);
  if (e.code === 'validation') return (f ? fieldProblem(f, v, { withRequired: true }) : null) ?? t('check.invalid');
  return errorText(e);
}

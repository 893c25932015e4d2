import { useId } from 'preact/hooks';
import type { TemplateFieldT } from '../../../../shared/template.ts';
import { textIn } from '../../../forms/install-model.ts';
import { getLang, t } from '../../../i18n.ts';

/**
 * A secret this user may not read: the server keeps it when the request leaves it out.
 * Typing a new one is offered, never required.
 */
export function KeptSecret({ field, onReplace }: { field: TemplateFieldT; onReplace: () => void }) {
  const id = useId();
  const label = textIn(field.label, getLang());
  return (
    <div class="ifield configure-kept" data-field={field.id}>
      <div class="ifield-label">
        <span class="configure-kept-label">{label}</span>
      </div>
      <div class="ifield-row">
        <p class="configure-kept-state" id={`${id}-s`}>
          {t('configure.secret_kept')}
        </p>
        <button
          type="button"
          class="btn btn-small"
          aria-label={t('configure.secret_replace_label', { label })}
          aria-describedby={`${id}-s`}
          onClick={onReplace}
        >
          {t('configure.secret_replace')}
        </button>
      </div>
    </div>
  );
}

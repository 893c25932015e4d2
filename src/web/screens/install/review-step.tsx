import type { FieldValue, TemplateFieldT } from '../../../shared/template.ts';
import { type FormValues, groupEnabled, type Step, textIn } from '../../forms/install-model.ts';
import { getLang, t } from '../../i18n.ts';
import { stepKey, stepTitle } from './step-title.ts';

function shown(f: TemplateFieldT, v: FieldValue | undefined): string {
  const empty = v === undefined || (typeof v === 'string' && v.trim() === '');
  if (f.type === 'boolean') return t(v === true ? 'install.on' : 'install.off');
  if (empty) return f.generate ? t('install.review_generated') : t('install.review_empty');
  // Secrets stay hidden here too; the review only says that one is set.
  if (f.secret || f.type === 'password') return t('install.review_secret');
  if (f.type === 'select') {
    const o = f.options?.find((x) => x.value === v);
    if (o) return textIn(o.label, getLang());
  }
  return String(v);
}

/** Everything that will be installed, step by step, each with a way back to change it. */
export function ReviewStep({
  name,
  steps,
  values,
  onEdit,
  fill,
}: {
  name: string;
  steps: Step[];
  values: FormValues;
  onEdit: (key: string) => void;
  /** Fills {name} and the other placeholders of a label. */
  fill: (text: string) => string;
}) {
  return (
    <div class="install-review">
      <p class="muted">{t('install.review_intro')}</p>
      {steps.map((s) => {
        if (s.kind === 'review') return null;
        const on = s.kind === 'main' || groupEnabled(s.group, values);
        const title = stepTitle(s);
        return (
          <section key={stepKey(s)} class="install-review-part" aria-label={title}>
            <div class="install-review-head">
              <h3>{title}</h3>
              <button
                type="button"
                class="btn btn-small btn-quiet"
                aria-label={t('install.review_change_label', { step: title })}
                onClick={() => onEdit(stepKey(s))}
              >
                {t('install.review_change')}
              </button>
            </div>
            <dl>
              {s.kind === 'main' && (
                <div>
                  <dt>{t('install.name')}</dt>
                  <dd class="mono">{name}</dd>
                </div>
              )}
              {s.kind === 'group' && s.group.toggle && (
                <div>
                  <dt>{t('install.group_on', { group: title })}</dt>
                  <dd>{t(on ? 'install.on' : 'install.off')}</dd>
                </div>
              )}
              {on &&
                s.fields.map((f) => (
                  <div key={f.id}>
                    <dt>{fill(textIn(f.label, getLang()))}</dt>
                    <dd>{shown(f, values[f.id])}</dd>
                  </div>
                ))}
            </dl>
          </section>
        );
      })}
    </div>
  );
}

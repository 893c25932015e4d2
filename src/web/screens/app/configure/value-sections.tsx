import { useId } from 'preact/hooks';
import type { FieldValue, TemplateFieldT, TemplateFileT, TemplateGroupT } from '../../../../shared/template.ts';
import type { Instance } from '../../../forms/connect-field.tsx';
import { buildSteps, type FormValues, groupEnabled, textIn, toggleId } from '../../../forms/install-model.ts';
import { Switch } from '../../../forms/switch.tsx';
import { TemplateField } from '../../../forms/template-field.tsx';
import { getLang, t } from '../../../i18n.ts';
import { KeptSecret } from './kept-secret.tsx';

export interface ValuesProps {
  template: TemplateFileT;
  advanced: boolean;
  values: FormValues;
  errors: Record<string, string>;
  /** Secrets the server keeps without showing them to this user; a field leaves the set once a new value is typed. */
  kept: ReadonlySet<string>;
  /** The secrets the server did not send to this user (`secrets_hidden`). */
  hidden: readonly string[];
  onChange: (id: string, v: FieldValue) => void;
  onKeep: (id: string, keep: boolean) => void;
  instances: (app: string) => Instance[];
  /** The app's containers, so a port it holds itself is not shown as taken. */
  own: readonly string[];
  /** Fills the placeholders ({name}) of labels, hints and defaults with this app's name. */
  fill: (text: string) => string;
}

/**
 * The template's fields on one page: the ungrouped ones, then a section per group with its switch.
 * The install form shows the same sections as steps; here a change is usually one or two values.
 */
export function ValueSections(p: ValuesProps) {
  const id = useId();
  const sections = buildSteps(p.template, p.advanced);
  return (
    <>
      {sections.map((s) => {
        if (s.kind === 'review') return null;
        if (s.kind === 'main') {
          if (s.fields.length === 0) return null;
          return (
            <section key="main" class="configure-section" aria-labelledby={`${id}-main`}>
              <h3 id={`${id}-main`}>{t('configure.settings')}</h3>
              <FieldList fields={s.fields} {...p} />
            </section>
          );
        }
        return <GroupSection key={s.group.id} group={s.group} fields={s.fields} {...p} />;
      })}
    </>
  );
}

function GroupSection(p: ValuesProps & { group: TemplateGroupT; fields: TemplateFieldT[] }) {
  const id = useId();
  const title = textIn(p.group.label, getLang());
  const on = groupEnabled(p.group, p.values);
  return (
    <section class="configure-section" aria-labelledby={`${id}-h`}>
      <div class="configure-section-head">
        <h3 id={`${id}-h`}>{title}</h3>
        {p.group.toggle && <Switch checked={on} onChange={(v) => p.onChange(toggleId(p.group.id), v)} label={t('install.group_on', { group: title })} />}
      </div>
      {on ? <FieldList {...p} /> : <p class="muted install-off">{t('install.group_off')}</p>}
    </section>
  );
}

function FieldList(p: ValuesProps & { fields: TemplateFieldT[] }) {
  if (p.fields.length === 0) return null;
  return (
    <div class="install-fields">
      {p.fields.map((f) =>
        p.kept.has(f.id) ? (
          <KeptSecret key={f.id} field={f} onReplace={() => p.onKeep(f.id, false)} />
        ) : (
          <div key={f.id} class="configure-field">
            <TemplateField
              field={f}
              value={p.values[f.id]}
              onChange={(v) => p.onChange(f.id, v)}
              error={p.errors[f.id] ?? null}
              instances={p.instances}
              ownContainers={p.own}
              fill={p.fill}
            />
            {/* A hidden secret being replaced can go back to the stored one. */}
            {p.hidden.includes(f.id) && (
              <button
                type="button"
                class="btn btn-small btn-quiet configure-keep"
                aria-label={t('configure.secret_keep_label', { label: textIn(f.label, getLang()) })}
                onClick={() => p.onKeep(f.id, true)}
              >
                {t('configure.secret_keep')}
              </button>
            )}
          </div>
        ),
      )}
    </div>
  );
}

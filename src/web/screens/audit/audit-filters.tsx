import type { TargetedEvent } from 'preact';
import { useId } from 'preact/hooks';
import type { AuditAnswerT, AuditFacetValueT } from '../../../shared/audit.ts';
import { AUDIT_PERIODS } from '../../../shared/audit-values.ts';
import { t } from '../../i18n.ts';
import { type AuditFilters, hasFilters } from './audit-api.ts';
import { actionLabel, sourceLabel, statusLabel } from './audit-labels.ts';

type FacetKey = Exclude<keyof AuditFilters, 'q' | 'period'>;

interface Props {
  filters: AuditFilters;
  text: string;
  facets: AuditAnswerT['facets'] | null;
  onFilter: (key: Exclude<keyof AuditFilters, 'q'>, value: string) => void;
  onText: (text: string) => void;
  onApplyText: () => void;
  onClear: () => void;
}

const FACETS: readonly { key: FacetKey; label: () => string; valueLabel: (v: string) => string }[] = [
  { key: 'action', label: () => t('audit.filter.action'), valueLabel: actionLabel },
  { key: 'source', label: () => t('audit.filter.source'), valueLabel: sourceLabel },
  { key: 'status', label: () => t('audit.filter.status'), valueLabel: statusLabel },
  { key: 'user', label: () => t('audit.filter.user'), valueLabel: (v) => v },
];

const PERIOD_LABEL = { '': 'audit.period.all', '24h': 'audit.period.24h', '7d': 'audit.period.7d', '30d': 'audit.period.30d' } as const;

/** The filter bar: choices come from the server's facet lists, each with its number of entries. */
export function AuditFilterBar({ filters, text, facets, onFilter, onText, onApplyText, onClear }: Props) {
  const id = useId();
  const submit = (e: TargetedEvent<HTMLFormElement>) => {
    e.preventDefault();
    onApplyText();
  };
  return (
    <search aria-label={t('audit.filters')}>
      <form class="audit-filters card" onSubmit={submit}>
        <div class="audit-field audit-search">
          <label for={`${id}-q`}>{t('audit.filter.text')}</label>
          <input
            id={`${id}-q`}
            type="search"
            value={text}
            onInput={(e) => onText(e.currentTarget.value)}
            aria-describedby={`${id}-q-hint`}
            autocomplete="off"
            spellcheck={false}
          />
          <p class="hint" id={`${id}-q-hint`}>
            {t('audit.filter.text_hint')}
          </p>
        </div>
        {FACETS.map((f) => (
          <FacetSelect
            key={f.key}
            id={`${id}-${f.key}`}
            label={f.label()}
            value={filters[f.key]}
            values={facets?.[f.key] ?? []}
            valueLabel={f.valueLabel}
            onChange={(v) => onFilter(f.key, v)}
          />
        ))}
        <div class="audit-field">
          <label for={`${id}-period`}>{t('audit.filter.period')}</label>
          <select id={`${id}-period`} value={filters.period} onChange={(e) => onFilter('period', e.currentTarget.value)}>
            {(['', ...AUDIT_PERIODS] as const).map((p) => (
              <option key={p} value={p}>
                {t(PERIOD_LABEL[p])}
              </option>
            ))}
          </select>
        </div>
        <div class="audit-clear">
          {hasFilters(filters) && (
            <button type="button" class="btn btn-small" onClick={onClear}>
              {t('audit.filter.clear')}
            </button>
          )}
        </div>
      </form>
    </search>
  );
}

interface FacetSelectProps {
  id: string;
  label: string;
  value: string;
  values: AuditFacetValueT[];
  valueLabel: (v: string) => string;
  onChange: (v: string) => void;
}

/** One filter as a choice list, sorted by label; the chosen value stays listed even when nothing matches it now. */
function FacetSelect({ id, label, value, values, valueLabel, onChange }: FacetSelectProps) {
  const options = value && !values.some((v) => v.value === value) ? [...values, { value, count: 0 }] : values;
  const sorted = options.map((o) => ({ ...o, label: valueLabel(o.value) })).sort((a, b) => a.label.localeCompare(b.label));
  return (
    <div class="audit-field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{t('audit.filter.all')}</option>
        {sorted.map((o) => (
          <option key={o.value} value={o.value}>
            {t('audit.filter.count', { label: o.label, count: o.count })}
          </option>
        ))}
      </select>
    </div>
  );
}

import { useEffect, useRef } from 'preact/hooks';
import { ErrorMessage } from '../../components/error-message.tsx';
import { PageHead } from '../../components/page-head.tsx';
import { t } from '../../i18n.ts';
import { AuditFilterBar } from './audit-filters.tsx';
import { AuditPager, AuditTable } from './audit-table.tsx';
import { type AuditState, useAudit } from './use-audit.ts';
import './audit.css';

/** The audit log for admins: who did what and when, filtered by the facets the server offers. */
export function AuditScreen() {
  const a = useAudit();
  const results = useRef<HTMLDivElement>(null);
  const shownOffset = useRef(a.offset);

  // A new page starts at its top; the pager that was clicked is at the bottom of the old one.
  useEffect(() => {
    if (a.answer && a.answer.offset !== shownOffset.current) results.current?.scrollIntoView({ block: 'start' });
    shownOffset.current = a.answer?.offset ?? shownOffset.current;
  }, [a.answer]);

  return (
    <section class="page" aria-labelledby="page-title">
      <PageHead title={t('audit.title')}>
        <button type="button" class="btn btn-small" onClick={a.reload}>
          {t('audit.refresh')}
        </button>
      </PageHead>
      <p class="muted audit-intro">{t('audit.intro')}</p>
      <AuditFilterBar
        filters={a.filters}
        text={a.text}
        facets={a.answer?.facets ?? null}
        onFilter={a.setFilter}
        onText={a.setText}
        onApplyText={a.applyText}
        onClear={a.clear}
      />
      <ErrorMessage error={a.error} />
      <div class="audit-results" ref={results}>
        <Results state={a} />
      </div>
    </section>
  );
}

function Results({ state: a }: { state: AuditState }) {
  if (!a.answer) {
    return a.error ? null : (
      <p class="muted" role="status">
        {t('audit.loading')}
      </p>
    );
  }
  const { entries, total, unfiltered_total, offset, limit } = a.answer;
  if (entries.length === 0) {
    // Say why it is empty: nothing logged at all is not the same as a filter that matches nothing.
    const nothingYet = unfiltered_total === 0;
    return (
      <div class="empty card" role="status">
        <p>{nothingYet ? t('audit.empty_log') : t('audit.empty_match', { total: unfiltered_total })}</p>
      </div>
    );
  }
  return (
    <>
      <AuditTable entries={entries} busy={a.loading} />
      <AuditPager offset={offset} limit={limit} shown={entries.length} total={total} onPage={a.setOffset} />
    </>
  );
}

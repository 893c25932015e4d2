import type { AuditEntryT } from '../../../shared/audit.ts';
import { t } from '../../i18n.ts';
import { actionLabel, detailText, formatMoment, sourceLabel, statusLabel } from './audit-labels.ts';

/** A visible dash for an empty cell, read out as a word. */
function Nothing({ word }: { word: string }) {
  return (
    <span class="a-nothing">
      <span aria-hidden="true">—</span>
      <span class="sr-only">{word}</span>
    </span>
  );
}

function Row({ e }: { e: AuditEntryT }) {
  const detail = detailText(e.detail);
  return (
    <tr data-status={e.status}>
      <td class="a-time" data-label={t('audit.col.time')}>
        <time dateTime={e.at}>{formatMoment(e.at)}</time>
      </td>
      <td class="a-user" data-label={t('audit.col.user')}>
        {e.user ?? <span class="muted">{t('audit.no_user')}</span>}
      </td>
      <td class="a-ip" data-label={t('audit.col.ip')}>
        {e.ip ?? <Nothing word={t('audit.none')} />}
      </td>
      <td class="a-action" data-label={t('audit.col.action')}>
        <span class="a-action-label">{actionLabel(e.action)}</span> <span class="a-source">{sourceLabel(e.source)}</span>
      </td>
      <td class="a-target" data-label={t('audit.col.target')}>
        {e.target ?? <Nothing word={t('audit.none')} />}
        {detail && <span class="a-detail">{detail}</span>}
      </td>
      <td class="a-status" data-label={t('audit.col.status')}>
        <span class={`a-badge a-badge-${e.status}`}>{statusLabel(e.status)}</span>
      </td>
    </tr>
  );
}

/** The entries as a table; on a phone the same rows are laid out as cards by the stylesheet. */
export function AuditTable({ entries, busy }: { entries: AuditEntryT[]; busy: boolean }) {
  return (
    <div class="audit-table-wrap card">
      <table class="audit-table" aria-busy={busy}>
        <caption class="sr-only">{t('audit.table')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('audit.col.time')}</th>
            <th scope="col">{t('audit.col.user')}</th>
            <th scope="col">{t('audit.col.ip')}</th>
            <th scope="col">{t('audit.col.action')}</th>
            <th scope="col">{t('audit.col.target')}</th>
            <th scope="col">{t('audit.col.status')}</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <Row key={e.id} e={e} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

interface PagerProps {
  offset: number;
  limit: number;
  shown: number;
  total: number;
  onPage: (offset: number) => void;
}

/** Where in the result we are, with previous and next when there is more than one page; the range is announced when it changes. */
export function AuditPager({ offset, limit, shown, total, onPage }: PagerProps) {
  const hasPrev = offset > 0;
  const hasNext = offset + shown < total;
  // aria-disabled rather than disabled, so the focused button keeps focus on the first or last page.
  const go = (ok: boolean, to: number) => () => ok && onPage(to);
  return (
    <nav class="audit-pager" aria-label={t('audit.pages')}>
      <p role="status" class="audit-range">
        {t('audit.range', { first: shown === 0 ? 0 : offset + 1, last: offset + shown, total })}
      </p>
      {(hasPrev || hasNext) && (
        <div class="audit-pager-buttons">
          <button type="button" class="btn btn-small" aria-disabled={!hasPrev} onClick={go(hasPrev, Math.max(0, offset - limit))}>
            <span aria-hidden="true">‹</span> {t('audit.prev')}
          </button>
          <button type="button" class="btn btn-small" aria-disabled={!hasNext} onClick={go(hasNext, offset + limit)}>
            {t('audit.next')} <span aria-hidden="true">›</span>
          </button>
        </div>
      )}
    </nav>
  );
}

import { diskBelowMinimum, diskWarns, formatBytes, formatPct } from '../../components/backup-format.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { getLang, t } from '../../i18n.ts';
import type { DiskStateT } from './backups-api.ts';

/** The backup folder's disk: how full it is, red from DISK_WARN_PCT on, and what DISK_MIN_FREE_GB keeps free. */
export function DiskBar({ disk, error }: { disk: DiskStateT | null; error: unknown }) {
  const lang = getLang();
  return (
    <section class="card backups-card disk" aria-labelledby="backups-disk">
      <h2 id="backups-disk">{t('backups.disk.title')}</h2>
      <ErrorMessage error={error} />
      {disk === null && !error && <p class="muted">{t('backups.disk.loading')}</p>}
      {disk && <DiskFacts disk={disk} lang={lang} />}
    </section>
  );
}

function DiskFacts({ disk: d, lang }: { disk: DiskStateT; lang: 'nl' | 'en' }) {
  const warn = diskWarns(d);
  const used = formatPct(d.used_pct, lang);
  const fill = Math.min(100, Math.max(0, d.used_pct));
  const size = (n: number) => formatBytes(n, lang);
  return (
    <>
      <p class="disk-path">{d.path}</p>
      <div class="disk-meter">
        <meter
          class={warn ? 'disk-bar disk-bar-warn' : 'disk-bar'}
          min={0}
          max={100}
          value={fill}
          aria-label={t('backups.disk.label')}
          aria-valuetext={t('backups.disk.used_pct', { pct: used })}
          data-level={warn ? 'warn' : 'ok'}
        />
        <span class="disk-bar-mark" style={{ left: `${Math.min(100, d.warn_pct)}%` }} title={t('backups.disk.mark', { warn: d.warn_pct })} />
      </div>
      <p class="disk-text">{t('backups.disk.usage', { used: size(d.total - d.free), total: size(d.total), pct: used, free: size(d.free) })}</p>
      {warn && <p class="disk-warning">{t('backups.disk.warn', { pct: used, warn: d.warn_pct })}</p>}
      {diskBelowMinimum(d) && <p class="disk-warning">{t('backups.disk.below_min', { min: d.min_free_gb })}</p>}
      <p class="muted small">{t('backups.disk.limits', { warn: d.warn_pct, min: d.min_free_gb })}</p>
    </>
  );
}

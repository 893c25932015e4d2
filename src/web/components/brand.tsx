import { t } from '../i18n.ts';

/** The product mark and name; decorative mark, the name carries the meaning. */
export function Brand() {
  return (
    <span class="brand">
      <img src="/favicon.svg" alt="" width="28" height="28" />
      <span class="brand-name">{t('app.name')}</span>
    </span>
  );
}

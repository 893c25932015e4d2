import { useEffect, useState } from 'preact/hooks';
import { copyText } from '../../components/copy-text.ts';
import { t } from '../../i18n.ts';

/** The same number of dots for every secret, so the mask does not give away the length. */
const MASK = '••••••••••••';
const COPIED_MS = 3000;

/** A value with a copy button; a masked one also gets a show/hide toggle. */
export function SecretValue({ value, label, masked }: { value: string; label: string; masked: boolean }) {
  const [shown, setShown] = useState(!masked);
  const [copied, setCopied] = useState<boolean | null>(null);
  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), COPIED_MS);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <span class="appview-secret">
      <code class="appview-mono appview-secret-text" data-masked={!shown}>
        {shown ? (
          value
        ) : (
          <>
            <span aria-hidden="true">{MASK}</span>
            <span class="sr-only">{t('appview.creds.hidden', { label })}</span>
          </>
        )}
      </code>
      <span class="appview-secret-buttons">
        {masked && (
          <button type="button" class="btn btn-small" onClick={() => setShown(!shown)}>
            {shown ? t('appview.creds.conceal', { label }) : t('appview.creds.reveal', { label })}
          </button>
        )}
        <button type="button" class="btn btn-small" aria-label={t('appview.creds.copy_label', { label })} onClick={() => void copyText(value).then(setCopied)}>
          {t('appview.creds.copy')}
        </button>
      </span>
      <span role="status" class="appview-copied small">
        {copied === true ? t('appview.creds.copied', { label }) : copied === false ? t('appview.creds.copy_failed') : ''}
      </span>
    </span>
  );
}

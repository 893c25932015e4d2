import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { ErrorMessage } from './error-message.tsx';
import './logs-panel.css';
import { requestText } from '../api.ts';

const TAIL = 200;
/** Lines kept on screen while following; older ones scroll away. */
const KEEP = 2000;

const toLines = (text: string) => (text === '' ? [] : text.replace(/\n$/, '').split('\n'));

/**
 * The last lines of a log, and new ones as they come while "follow" is on. `base` is the API path
 * whose `/logs` answers: a container (`/api/containers/<id>`) or an app (`/api/stacks/<name>`).
 */
export function LogsPanel({ base, name }: { base: string; name: string }) {
  const [lines, setLines] = useState<string[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [follow, setFollow] = useState(false);
  const [ended, setEnded] = useState(false);
  const box = useRef<HTMLPreElement>(null);

  useEffect(() => {
    let alive = true;
    requestText(`${base}/logs?tail=${TAIL}`).then(
      (text) => alive && setLines(toLines(text)),
      (e: unknown) => alive && setError(e),
    );
    return () => {
      alive = false;
    };
  }, [base]);

  useEffect(() => {
    if (!follow) return;
    setEnded(false);
    const source = new EventSource(`${base}/logs?follow=1&tail=0`);
    source.addEventListener('line', (e) => setLines((old) => [...(old ?? []), (e as MessageEvent<string>).data].slice(-KEEP)));
    source.addEventListener('end', () => {
      setEnded(true);
      source.close();
    });
    return () => source.close();
  }, [base, follow]);

  // Keep the newest line in view, like a terminal.
  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <div class="ctr-panel">
      <div class="logs-head">
        <p class="small muted">{t('containers.logs_tail', { tail: TAIL })}</p>
        <label class="logs-follow">
          <input type="checkbox" checked={follow} onChange={(e) => setFollow(e.currentTarget.checked)} />
          {t('containers.follow')}
        </label>
      </div>
      <ErrorMessage error={error} />
      {lines === null && !error && (
        <p class="muted small" role="status">
          {t('containers.logs_loading')}
        </p>
      )}
      {lines !== null && (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls, so keyboard users must be able to focus it.
        <pre class="logs-text" ref={box} role="log" tabIndex={0} aria-label={t('containers.logs_region', { name })}>
          {lines.length > 0 ? lines.join('\n') : t('containers.logs_empty')}
        </pre>
      )}
      {ended && <p class="muted small">{t('containers.logs_ended')}</p>}
    </div>
  );
}

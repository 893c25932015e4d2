import { useState } from 'preact/hooks';
import { ErrorMessage } from '../../components/error-message.tsx';
import { httpHref } from '../../components/link-href.ts';
import { t } from '../../i18n.ts';
import { getCredentials, type StackCredentialsT } from './app-api.ts';
import { SecretValue } from './secret-value.tsx';

type State = { kind: 'idle' } | { kind: 'loading' } | { kind: 'shown'; creds: StackCredentialsT } | { kind: 'refused'; error: unknown };

const isEmpty = (c: StackCredentialsT) => c.url === null && c.username === null && c.password === null && c.other.length === 0;

/** Address, user name and password of the app; admins only, fetched on a click because every fetch is audited. */
export function CredentialsPanel({ name }: { name: string }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const show = async () => {
    if (state.kind === 'loading') return;
    setState({ kind: 'loading' });
    try {
      setState({ kind: 'shown', creds: await getCredentials(name) });
    } catch (error) {
      setState({ kind: 'refused', error });
    }
  };
  return (
    <section class="card appview-card" aria-labelledby="appview-creds">
      <h2 id="appview-creds">{t('appview.creds.title')}</h2>
      <p class="muted small">{t('appview.creds.audit_note')}</p>
      {state.kind === 'shown' ? (
        <>
          <Credentials creds={state.creds} />
          <p>
            <button type="button" class="btn btn-small" onClick={() => setState({ kind: 'idle' })}>
              {t('appview.creds.hide')}
            </button>
          </p>
        </>
      ) : (
        <p>
          <button type="button" class="btn" aria-disabled={state.kind === 'loading'} onClick={() => void show()}>
            {state.kind === 'loading' ? t('appview.creds.loading') : t('appview.creds.show')}
          </button>
        </p>
      )}
      {state.kind === 'refused' && <ErrorMessage error={state.error} />}
    </section>
  );
}

function Credentials({ creds }: { creds: StackCredentialsT }) {
  if (isEmpty(creds)) return <p class="appview-empty">{t('appview.creds.none')}</p>;
  // Only an http(s) address is a link: the value comes from the app's template or `.env`.
  const href = creds.url === null ? null : httpHref(creds.url);
  return (
    <dl class="appview-facts appview-creds">
      {creds.url !== null && (
        <div>
          <dt>{t('appview.creds.url')}</dt>
          <dd>
            {href ? (
              <a href={href} target="_blank" rel="noopener noreferrer">
                {creds.url}
              </a>
            ) : (
              <span>{creds.url}</span>
            )}
          </dd>
        </div>
      )}
      {creds.username !== null && (
        <div>
          <dt>{t('appview.creds.username')}</dt>
          <dd>
            <SecretValue value={creds.username} label={t('appview.creds.username')} masked={false} />
          </dd>
        </div>
      )}
      {creds.password !== null && (
        <div>
          <dt>{t('appview.creds.password')}</dt>
          <dd>
            <SecretValue value={creds.password} label={t('appview.creds.password')} masked />
          </dd>
        </div>
      )}
      {creds.other.map((o) => (
        <div key={o.field}>
          <dt>{o.label}</dt>
          <dd>
            <SecretValue value={o.value} label={o.label} masked />
          </dd>
        </div>
      ))}
    </dl>
  );
}

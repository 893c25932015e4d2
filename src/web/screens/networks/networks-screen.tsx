import { useState } from 'preact/hooks';
import { roleAllows } from '../../../shared/roles.ts';
import type { UserT } from '../../api.ts';
import { LoadState } from '../../components/load-state.tsx';
import type { NetworkProblemT } from '../../components/networks-api.ts';
import { PageHead } from '../../components/page-head.tsx';
import { useNetworks } from '../../components/use-networks.ts';
import { t } from '../../i18n.ts';
import { NetworkForm } from './network-form.tsx';
import { NetworkRow } from './network-row.tsx';
import './networks.css';

/** A message kept as data, so it follows a language switch. */
type Notice = { kind: 'deleted' | 'taken_over'; name: string };

/** The shared networks: everyone sees them, operators check addresses, admins create, take over and delete. */
export function NetworksScreen({ user }: { user: UserT }) {
  const { list, error, reload } = useNetworks();
  const [notice, setNotice] = useState<Notice | null>(null);
  const [created, setCreated] = useState<{ name: string; warnings: NetworkProblemT[] } | null>(null);
  const rights = { check: roleAllows(user.role, 'operator'), manage: roleAllows(user.role, 'admin') };
  const networks = list?.networks ?? null;

  return (
    <section class="page networks-page" aria-labelledby="page-title">
      <PageHead title={t('networks.title')}>
        <button type="button" class="btn btn-small" onClick={reload}>
          {t('networks.refresh')}
        </button>
      </PageHead>
      <p class="muted net-intro">{t('networks.intro')}</p>
      <div role="status" class="net-status">
        {notice && (
          <p class="notice">{notice.kind === 'deleted' ? t('networks.deleted', { name: notice.name }) : t('networks.taken_over', { name: notice.name })}</p>
        )}
      </div>
      <LoadState error={error} loading={networks === null} text={t('networks.loading')} />
      {networks !== null && networks.length === 0 && (
        <div class="empty card">
          <p>{t('networks.empty')}</p>
        </div>
      )}
      {networks !== null && networks.length > 0 && (
        <ul class="net-list" aria-label={t('networks.list_label')}>
          {networks.map((n) => (
            <NetworkRow
              key={n.name}
              network={n}
              rights={rights}
              onChanged={(done) => {
                setNotice(done);
                setCreated(null);
                reload();
              }}
            />
          ))}
        </ul>
      )}
      {rights.manage && (
        <NetworkForm
          taken={list?.networks.map((n) => n.name) ?? []}
          host={list?.host ?? null}
          hostError={list?.host_error ?? null}
          loaded={list !== null}
          created={created}
          onCreated={(answer) => {
            setCreated({ name: answer.network.name, warnings: answer.warnings });
            setNotice(null);
            reload();
          }}
        />
      )}
    </section>
  );
}

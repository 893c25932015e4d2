import { useId } from 'preact/hooks';
import type { HostNetworkT } from '../../components/networks-api.ts';
import { t } from '../../i18n.ts';

interface Props {
  host: HostNetworkT | null;
  error: string | null;
  loaded: boolean;
  onUse: (host: HostNetworkT) => void;
}

/**
 * The network this host itself is on, read from its routing table, at the top of the form: one click fills
 * the form with it (a macvlan network, so apps get addresses on the LAN). It stays when a network already uses it.
 */
export function HostNetworkBox({ host, error, loaded, onUse }: Props) {
  const id = useId();
  if (!loaded) return null;
  if (!host) {
    return <p class="net-host net-host-unknown muted">{error ? t('networks.host_unknown', { error }) : t('networks.host_none')}</p>;
  }
  const facts: [string, string | null][] = [
    [t('networks.host_interface'), host.interface],
    [t('networks.host_address'), host.address],
    [t('networks.field.subnet'), host.subnet],
    [t('networks.field.gateway'), host.gateway],
    [t('networks.host_suggested'), host.suggested_range],
  ];
  return (
    <section class="net-host" aria-labelledby={`${id}-h`}>
      <div class="net-host-head">
        <h3 id={`${id}-h`}>{t('networks.host_title')}</h3>
        {host.added && <span class="badge net-badge-added">{t('networks.host_added')}</span>}
      </div>
      <dl class="net-facts">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value ? <code>{value}</code> : <span class="muted">{t('networks.none')}</span>}</dd>
          </div>
        ))}
      </dl>
      <p class="hint">{host.added ? t('networks.host_added_hint') : t('networks.host_use_hint')}</p>
      <div>
        <button type="button" class="btn btn-small" onClick={() => onUse(host)}>
          {t('networks.host_use')}
        </button>
      </div>
    </section>
  );
}

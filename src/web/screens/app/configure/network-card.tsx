import { useId, useState } from 'preact/hooks';
import type { ConnectRequestT } from '../../../../shared/networks.ts';
import { addressUsable, IpAddressField, type IpCheckState, useIpCheck } from '../../../components/ip-check.tsx';
import type { NetworkViewT } from '../../../components/networks-api.ts';
import { t } from '../../../i18n.ts';
import type { StackConfigT } from './configure-api.ts';

/** What a connect job does, kept as data so its heading follows a language switch. */
export type NetAction = { kind: 'join' | 'leave'; network: string } | { kind: 'address'; network: string; service: string; ip: string | null };

type Service = StackConfigT['services'][number];
type OnAction = (action: NetAction, body: ConnectRequestT) => Promise<boolean>;

interface Props {
  network: NetworkViewT;
  config: StackConfigT;
  own: readonly string[];
  disabled: boolean;
  onAction: OnAction;
}

const joinOf = (s: Service, network: string) => s.networks.find((x) => x.network === network) ?? null;

/** An own address that the check says may not be used blocks the button; an unchecked one is left to the server. */
const blocks = (ip: string, check: IpCheckState, own: readonly string[]) => ip.trim() !== '' && check.kind === 'done' && !addressUsable(check, own);

/** One shared network as this app sees it: joined or not, each service on it with its address, and what can be done. */
export function NetworkCard({ network: n, config, own, disabled, onAction }: Props) {
  const id = useId();
  const joined = config.networks.includes(n.name);
  return (
    <li class="appnet" aria-labelledby={`${id}-h`} data-network={n.name}>
      <div class="appnet-head">
        <h3 id={`${id}-h`}>
          <span class="mono">{n.name}</span>
          <span class={`badge appnet-state ${joined ? 'appnet-joined' : 'appnet-out'}`}>{joined ? t('appnet.joined') : t('appnet.not_joined')}</span>
        </h3>
        {joined && (
          <button
            type="button"
            class="btn btn-small"
            aria-disabled={disabled}
            aria-label={t('appnet.leave_label', { network: n.name })}
            onClick={() => !disabled && void onAction({ kind: 'leave', network: n.name }, { network: n.name, disconnect: true })}
          >
            {t('appnet.leave')}
          </button>
        )}
      </div>
      <p class="muted small">
        {t(`networks.kind.${n.kind}`)} · {n.driver}
        {n.interface ? ` · ${n.interface}` : ''} · {n.subnet ? t('appnet.subnet', { subnet: n.subnet }) : t('appnet.subnet_later')}
      </p>
      {joined ? (
        <JoinedServices n={n} config={config} own={own} disabled={disabled} onAction={onAction} />
      ) : (
        <JoinForm n={n} config={config} own={own} disabled={disabled} onAction={onAction} />
      )}
    </li>
  );
}

type PartProps = { n: NetworkViewT; config: StackConfigT; own: readonly string[]; disabled: boolean; onAction: OnAction };

/** Not on the network yet: all services join, or the chosen ones; one chosen service may ask for its own address. */
function JoinForm({ n, config, own, disabled, onAction }: PartProps) {
  const id = useId();
  const all = config.services.map((s) => s.name);
  const [chosen, setChosen] = useState<string[]>(all);
  const [ip, setIp] = useState('');
  const check = useIpCheck(n.name, n.subnet ? ip : '');
  const single = chosen.length === 1 ? chosen[0] : undefined;
  const wantsIp = single !== undefined && n.subnet !== null && ip.trim() !== '';
  const none = chosen.length === 0;
  const stop = disabled || none || (wantsIp && blocks(ip, check, own));

  const join = () => {
    if (stop) return;
    const everyone = chosen.length === all.length;
    const body: ConnectRequestT = { network: n.name, ...(everyone && !wantsIp ? {} : { services: chosen }), ...(wantsIp ? { ip: ip.trim() } : {}) };
    void onAction({ kind: 'join', network: n.name }, body).then((ok) => ok && setIp(''));
  };
  const toggle = (s: string, on: boolean) => setChosen((old) => (on ? all.filter((x) => x === s || old.includes(x)) : old.filter((x) => x !== s)));

  return (
    <div class="appnet-join">
      {all.length > 1 && (
        <fieldset class="appnet-services">
          <legend>{t('appnet.choose')}</legend>
          {all.map((s) => (
            <label key={s} class="configure-check">
              <input type="checkbox" checked={chosen.includes(s)} onChange={(e) => toggle(s, e.currentTarget.checked)} />
              <span class="mono">{s}</span>
            </label>
          ))}
        </fieldset>
      )}
      {single !== undefined && n.subnet && (
        <IpAddressField
          label={t('appnet.join_ip', { service: single })}
          hint={t('appnet.join_ip_hint')}
          value={ip}
          onInput={setIp}
          check={check}
          own={own}
          name={`ip-${n.name}`}
        />
      )}
      <div class="appnet-buttons">
        <button type="button" class="btn btn-primary btn-small" aria-disabled={stop} aria-label={t('appnet.join_label', { network: n.name })} onClick={join}>
          {chosen.length === all.length ? t('appnet.join_all') : t('appnet.join_chosen', { count: chosen.length })}
        </button>
        {none && (
          <span class="muted small" id={`${id}-none`}>
            {t('appnet.choose_one')}
          </span>
        )}
      </div>
    </div>
  );
}

/** On the network: each service with its address; a service not on it can be added, one on it can get its own address. */
function JoinedServices({ n, config, own, disabled, onAction }: PartProps) {
  const [editing, setEditing] = useState<string | null>(null);
  return (
    <ul class="appnet-services-list">
      {config.services.map((s) => {
        const j = joinOf(s, n.name);
        return (
          <li key={s.name} data-service={s.name}>
            <div class="appnet-service-line">
              <span class="mono appnet-service">{s.name}</span>
              <span class="appnet-service-state">
                {j === null ? t('appnet.service_off') : j.ip ? t('appnet.service_on_ip', { ip: j.ip }) : t('appnet.service_on')}
              </span>
              {j === null ? (
                <button
                  type="button"
                  class="btn btn-small"
                  aria-disabled={disabled}
                  aria-label={t('appnet.add_service_label', { service: s.name, network: n.name })}
                  onClick={() => !disabled && void onAction({ kind: 'join', network: n.name }, { network: n.name, services: [s.name] })}
                >
                  {t('appnet.add_service')}
                </button>
              ) : (
                n.subnet && (
                  <button
                    type="button"
                    class="btn btn-small"
                    aria-expanded={editing === s.name}
                    aria-label={t('appnet.own_ip_label', { service: s.name, network: n.name })}
                    onClick={() => setEditing(editing === s.name ? null : s.name)}
                  >
                    {t('appnet.own_ip')}
                  </button>
                )
              )}
            </div>
            {editing === s.name && j !== null && (
              <OwnAddress n={n} service={s.name} current={j.ip} own={own} disabled={disabled} onAction={onAction} onClose={() => setEditing(null)} />
            )}
          </li>
        );
      })}
    </ul>
  );
}

function OwnAddress(p: {
  n: NetworkViewT;
  service: string;
  current: string | null;
  own: readonly string[];
  disabled: boolean;
  onAction: OnAction;
  onClose: () => void;
}) {
  const [ip, setIp] = useState(p.current ?? '');
  const check = useIpCheck(p.n.name, ip);
  const value = ip.trim();
  const stop = p.disabled || value === '' || value === p.current || blocks(ip, check, p.own);
  const send = (address: string | null) => {
    const body: ConnectRequestT = { network: p.n.name, services: [p.service], ...(address ? { ip: address } : {}) };
    void p.onAction({ kind: 'address', network: p.n.name, service: p.service, ip: address }, body).then((ok) => ok && p.onClose());
  };
  return (
    <div class="appnet-own">
      <IpAddressField
        label={t('appnet.own_ip_field', { service: p.service, network: p.n.name })}
        hint={t('appnet.own_ip_hint')}
        value={ip}
        onInput={setIp}
        check={check}
        own={p.own}
        name={`ip-${p.n.name}-${p.service}`}
      />
      <div class="appnet-buttons">
        <button type="button" class="btn btn-primary btn-small" aria-disabled={stop} onClick={() => !stop && send(value)}>
          {t('appnet.set_ip')}
        </button>
        {p.current && (
          <button type="button" class="btn btn-small" aria-disabled={p.disabled} onClick={() => !p.disabled && send(null)}>
            {t('appnet.auto_ip')}
          </button>
        )}
        <button type="button" class="btn btn-small btn-quiet" onClick={p.onClose}>
          {t('appnet.cancel')}
        </button>
      </div>
    </div>
  );
}

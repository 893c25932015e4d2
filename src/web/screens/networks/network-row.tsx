import type { Ref } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../api.ts';
import { ErrorMessage } from '../../components/error-message.tsx';
import { IpAddressField, useIpCheck } from '../../components/ip-check.tsx';
import type { NetworkViewT } from '../../components/networks-api.ts';
import { useAction } from '../../components/use-action.ts';
import { t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';
import { deleteNetwork, takeOverNetwork } from './networks-api.ts';

export interface NetworkRights {
  /** Operators and admins check addresses. */
  check: boolean;
  /** Admins take over and delete. */
  manage: boolean;
}

interface Props {
  network: NetworkViewT;
  rights: NetworkRights;
  onChanged: (notice: { kind: 'deleted' | 'taken_over'; name: string }) => void;
}

const appHref = (stack: string) => `/apps/${encodeURIComponent(stack)}`;

/** One network: what it is, its address plan, who is on it; the address check; take over or delete as the role allows. */
export function NetworkRow({ network: n, rights, onChanged }: Props) {
  const heading = useId();
  const [confirming, setConfirming] = useState(false);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const mine = n.kind !== 'engine';

  useEffect(() => {
    if (confirming) cancelButton.current?.focus();
  }, [confirming]);
  // The question closed gives the focus back to the button that asked it.
  const close = () => {
    setConfirming(false);
    deleteButton.current?.focus();
  };

  const action = useAction(async (work: () => Promise<void>) => {
    try {
      await work();
    } catch (err) {
      close();
      throw err;
    }
  });
  const { busy, error } = action;
  const change = (kind: 'deleted' | 'taken_over', work: (name: string) => Promise<unknown>) =>
    action.run(async () => {
      await work(n.name);
      onChanged({ kind, name: n.name });
    });

  return (
    <li class="net card" aria-labelledby={heading} aria-busy={busy} data-network={n.name}>
      <div class="net-head">
        <NetworkTitle n={n} heading={heading} />
        {rights.manage && (
          <div class="net-actions">
            {mine ? (
              <button
                ref={deleteButton}
                type="button"
                class="btn btn-small btn-danger-quiet"
                aria-expanded={confirming}
                aria-label={t('networks.delete_label', { name: n.name })}
                onClick={() => {
                  action.reset();
                  setConfirming(!confirming);
                }}
              >
                {t('networks.delete')}
              </button>
            ) : (
              <button
                type="button"
                class="btn btn-small"
                aria-label={t('networks.take_over_label', { name: n.name })}
                onClick={() => void change('taken_over', takeOverNetwork)}
              >
                {busy ? t('networks.busy') : t('networks.take_over')}
              </button>
            )}
          </div>
        )}
      </div>
      <p class="muted small">{t(`networks.kind_hint.${n.kind}`)}</p>
      {!n.exists && <p class="muted small">{t('networks.not_created_hint')}</p>}
      <Facts n={n} />
      <Members n={n} />
      {confirming && <DeleteQuestion name={n.name} busy={busy} cancel={cancelButton} onYes={() => void change('deleted', deleteNetwork)} onNo={close} />}
      <ErrorMessage error={error} onDismiss={action.reset} />
      <InUse error={error} n={n} />
      {rights.check && n.subnet && <AddressCheck network={n.name} />}
    </li>
  );
}

function DeleteQuestion(p: { name: string; busy: boolean; cancel: Ref<HTMLButtonElement>; onYes: () => void; onNo: () => void }) {
  return (
    <fieldset class="net-confirm">
      <legend>{t('networks.delete_confirm', { name: p.name })}</legend>
      <div class="net-form-buttons">
        <button type="button" class="btn btn-small btn-danger" onClick={p.onYes}>
          {p.busy ? t('networks.busy') : t('networks.delete_yes')}
        </button>
        <button ref={p.cancel} type="button" class="btn btn-small" onClick={p.onNo}>
          {t('networks.cancel')}
        </button>
      </div>
    </fieldset>
  );
}

function NetworkTitle({ n, heading }: { n: NetworkViewT; heading: string }) {
  return (
    <h2 id={heading}>
      <span class="mono">{n.name}</span>
      <span class={`badge net-kind net-kind-${n.kind}`}>{t(`networks.kind.${n.kind}`)}</span>
      <span class="badge net-driver">{n.driver}</span>
      {!n.exists && <span class="badge net-badge-later">{t('networks.not_created')}</span>}
    </h2>
  );
}

function Facts({ n }: { n: NetworkViewT }) {
  const auto = n.exists ? t('networks.auto') : t('networks.later');
  const rows: [string, string | null, string][] = [
    [t('networks.field.subnet'), n.subnet, auto],
    [t('networks.field.gateway'), n.gateway, auto],
    [t('networks.field.range'), n.range, t('networks.whole_subnet')],
    [t('networks.field.interface'), n.interface, t('networks.none')],
  ];
  return (
    <dl class="net-facts">
      {rows.map(([label, value, empty]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value ? <code>{value}</code> : <span class="muted">{empty}</span>}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Who is on the network: an app's containers link to the app; others are named as the engine names them. */
function Members({ n }: { n: NetworkViewT }) {
  if (n.members.length === 0) return <p class="muted net-members-none">{t('networks.members_none')}</p>;
  return (
    <div class="net-members">
      <h3>{t('networks.members')}</h3>
      <ul>
        {n.members.map((m) => (
          <li key={m.container}>
            {m.stack ? (
              <a href={appHref(m.stack)} onClick={onLinkClick}>
                {m.stack}
              </a>
            ) : (
              <span>{t('networks.member_other')}</span>
            )}
            <span class="muted mono small">{m.service ? t('networks.member_service', { service: m.service, container: m.container }) : m.container}</span>
            {m.ip && <code>{m.ip}</code>}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** A refused delete names the apps still on the network: each links to its app, where it can leave. */
function InUse({ error, n }: { error: unknown; n: NetworkViewT }) {
  if (!(error instanceof ApiError) || error.code !== 'network_in_use') return null;
  const names = String(error.params.stacks ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const apps = new Set(n.members.flatMap((m) => (m.stack ? [m.stack] : [])));
  return (
    <div class="net-in-use">
      <p>{t('networks.in_use_apps')}</p>
      <ul>
        {names.map((s) => (
          <li key={s}>
            {apps.has(s) || !n.members.some((m) => m.container === s) ? (
              <a href={appHref(s)} onClick={onLinkClick}>
                {s}
              </a>
            ) : (
              <span class="mono">{s}</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

function AddressCheck({ network }: { network: string }) {
  const [ip, setIp] = useState('');
  const check = useIpCheck(network, ip);
  return (
    <details class="net-check">
      <summary>{t('networks.check_title')}</summary>
      <IpAddressField label={t('networks.check_label', { name: network })} hint={t('networks.check_hint')} value={ip} onInput={setIp} check={check} />
    </details>
  );
}

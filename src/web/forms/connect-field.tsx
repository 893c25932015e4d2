import { useState } from 'preact/hooks';
import { connectTarget } from '../../shared/connect.ts';
import { connectAddress } from '../../shared/field-rules.ts';
import { t } from '../i18n.ts';
import type { Instance } from './connect-instances.ts';
import type { A11y } from './field.tsx';

export type { Instance };

interface Connect {
  app: string;
  scheme: string;
  port: number;
}

// Not a possible stack name (names start with a letter or digit), so it never clashes with an instance.
const MANUAL = '-manual';

/** What an instance offers: its exact address, or why it has none (docs/templates.md, "Connect fields"). */
function offer(c: Connect, i: Instance): { address: string | null; why: string } {
  if (i.ports === null) return { address: null, why: t('connect.checking', { name: i.name }) };
  const target = connectTarget(c, i.ports);
  if ('address' in target) return { address: target.address, why: '' };
  return {
    address: null,
    why: t(target.problem === 'loopback_only' ? 'connect.loopback_only' : 'connect.not_published', { name: i.name, port: c.port }),
  };
}

/**
 * The address of another installed app: a choice among its instances, each shown with the exact
 * address the app will use, or typed by hand. An instance that publishes no port for it is listed
 * but cannot be chosen, and the form says why; when none is installed, it says so.
 */
export function ConnectInput(p: { a11y: A11y; connect: Connect; value: string; onChange: (v: string) => void; instances: Instance[]; label: string }) {
  const { a11y, connect, value, instances } = p;
  const offers = instances.map((i) => ({ instance: i, ...offer(connect, i) }));
  const matching = offers.find((o) => o.address !== null && o.address === value);
  const [manual, setManual] = useState(instances.length === 0 || (value !== '' && !matching));
  const noticeId = `${a11y.id}-none`;
  const example = connectAddress(connect.scheme, 'host.docker.internal', connect.port);
  const manualInput = (own: boolean) => (
    <input
      type="url"
      {...(own ? a11y : { id: `${a11y.id}-manual`, name: `${a11y.name}-manual`, 'aria-label': t('install.connect_manual_label', { label: p.label }) })}
      aria-describedby={[a11y['aria-describedby'], noticeId].filter(Boolean).join(' ')}
      aria-invalid={a11y['aria-invalid']}
      class="mono"
      autocomplete="off"
      spellcheck={false}
      placeholder={example}
      value={value}
      onInput={(e) => p.onChange(e.currentTarget.value)}
    />
  );
  if (instances.length === 0) {
    return (
      <>
        <p class="notice connect-none" id={noticeId}>
          {t('connect.none', { app: connect.app, example })}
        </p>
        {manualInput(true)}
      </>
    );
  }
  const choice = manual ? MANUAL : (matching?.instance.name ?? '');
  const blocked = offers.filter((o) => o.address === null);
  return (
    <>
      <select
        {...a11y}
        value={choice}
        onChange={(e) => {
          const v = e.currentTarget.value;
          setManual(v === MANUAL);
          const o = offers.find((x) => x.instance.name === v);
          p.onChange(o?.address ? o.address : v === MANUAL ? value : '');
        }}
      >
        <option value="">{t('install.connect_pick')}</option>
        {offers.map((o) => (
          <option key={o.instance.name} value={o.instance.name} disabled={o.address === null}>
            {o.address ? t('install.connect_instance', { name: o.instance.name, address: o.address }) : o.why}
          </option>
        ))}
        <option value={MANUAL}>{t('install.connect_manual')}</option>
      </select>
      {matching?.address && (
        <p class="hint connect-address mono" id={noticeId}>
          {t('connect.address', { address: matching.address })}
        </p>
      )}
      {!matching && blocked.length > 0 && (
        <p class="notice connect-none" id={noticeId}>
          {blocked.map((o) => o.why).join(' ')}
        </p>
      )}
      {manual && manualInput(false)}
    </>
  );
}

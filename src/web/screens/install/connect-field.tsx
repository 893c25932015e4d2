import { useState } from 'preact/hooks';
import { t } from '../../i18n.ts';
import type { A11y } from './template-field.tsx';

/** An installed app that a connect field may point at. */
export interface Instance {
  name: string;
}

interface Connect {
  app: string;
  scheme: string;
  port: number;
}

// Not a possible stack name (names start with a letter or digit), so it never clashes with an instance.
const MANUAL = '-manual';

/** The address of an instance as other containers reach it: its stack name and the app's own port. */
export const addressOf = (c: Connect, stack: string): string => `${c.scheme}://${stack}:${c.port}`;

/**
 * The address of another installed app: a choice among its instances, or typed by hand. When none
 * is installed, the form says so and only the typed address remains.
 */
export function ConnectInput(p: { a11y: A11y; connect: Connect; value: string; onChange: (v: string) => void; instances: Instance[]; label: string }) {
  const { a11y, connect, value, instances } = p;
  const matching = instances.find((i) => addressOf(connect, i.name) === value);
  const [manual, setManual] = useState(instances.length === 0 || (value !== '' && !matching));
  const noticeId = `${a11y.id}-none`;
  if (instances.length === 0) {
    return (
      <>
        <p class="notice connect-none" id={noticeId}>
          {t('install.connect_none', { app: connect.app })}
        </p>
        <input
          type="url"
          {...a11y}
          aria-describedby={[a11y['aria-describedby'], noticeId].filter(Boolean).join(' ')}
          class="mono"
          autocomplete="off"
          spellcheck={false}
          placeholder={addressOf(connect, connect.app)}
          value={value}
          onInput={(e) => p.onChange(e.currentTarget.value)}
        />
      </>
    );
  }
  const choice = manual ? MANUAL : (matching?.name ?? '');
  return (
    <>
      <select
        {...a11y}
        value={choice}
        onChange={(e) => {
          const v = e.currentTarget.value;
          setManual(v === MANUAL);
          const inst = instances.find((i) => i.name === v);
          p.onChange(inst ? addressOf(connect, inst.name) : v === MANUAL ? value : '');
        }}
      >
        <option value="">{t('install.connect_pick')}</option>
        {instances.map((i) => (
          <option key={i.name} value={i.name}>
            {t('install.connect_instance', { name: i.name, address: addressOf(connect, i.name) })}
          </option>
        ))}
        <option value={MANUAL}>{t('install.connect_manual')}</option>
      </select>
      {manual && (
        <input
          type="url"
          id={`${a11y.id}-manual`}
          name={`${a11y.name}-manual`}
          aria-label={t('install.connect_manual_label', { label: p.label })}
          class="mono"
          autocomplete="off"
          spellcheck={false}
          placeholder={addressOf(connect, connect.app)}
          value={value}
          onInput={(e) => p.onChange(e.currentTarget.value)}
        />
      )}
    </>
  );
}

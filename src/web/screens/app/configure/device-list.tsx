import { useId } from 'preact/hooks';
import { t } from '../../../i18n.ts';
import type { DeviceT } from './configure-api.ts';
import { deviceField } from './configure-model.ts';
import { ExtraField } from './extra-field.tsx';

interface Props {
  service: string;
  devices: string[];
  onChange: (devices: string[]) => void;
  errors: Record<string, string>;
  /** The host's serial and video devices; null while unknown (not loaded, or the host could not be asked). */
  found: DeviceT[] | null;
}

/** Devices passed into one service; the host's devices are offered as suggestions, by-id links first. */
export function DeviceList(p: Props) {
  const id = useId();
  const listId = `${id}-found`;
  const set = (i: number, v: string) => p.onChange(p.devices.map((d, j) => (j === i ? v : d)));
  const add = (path = '') => {
    p.onChange([...p.devices, path]);
    setTimeout(() => (document.querySelector(`[name="${deviceField(p.service, p.devices.length)}"]`) as HTMLElement | null)?.focus(), 0);
  };
  // Stable paths survive replugging, so they are the better choice and come first.
  const found = [...(p.found ?? [])].sort((a, b) => Number(b.stable) - Number(a.stable));
  return (
    <div class="configure-extras-part">
      <h5>{t('configure.devices')}</h5>
      {p.devices.length === 0 && <p class="muted">{t('configure.devices_none')}</p>}
      {p.devices.length > 0 && (
        <ol class="configure-rows">
          {p.devices.map((d, i) => {
            const name = deviceField(p.service, i);
            return (
              <li key={i} class="configure-row configure-device">
                <ExtraField
                  id={`${id}-${i}`}
                  label={t('configure.device_n', { n: i + 1 })}
                  name={name}
                  list={listId}
                  value={d}
                  placeholder="/dev/ttyUSB0"
                  error={p.errors[name] ?? null}
                  onInput={(v) => set(i, v)}
                  beside={
                    <button
                      type="button"
                      class="btn btn-small btn-quiet"
                      aria-label={t('configure.device_remove_label', { n: i + 1 })}
                      onClick={() => p.onChange(p.devices.filter((_, j) => j !== i))}
                    >
                      {t('configure.remove')}
                    </button>
                  }
                />
              </li>
            );
          })}
        </ol>
      )}
      <datalist id={listId}>
        {found.map((f) => (
          <option key={f.path} value={f.path}>
            {deviceLabel(f)}
          </option>
        ))}
      </datalist>
      <div class="configure-found">
        <button type="button" class="btn btn-small" onClick={() => add()}>
          {t('configure.device_add')}
        </button>
        {found.length > 0 && (
          <ul class="configure-found-list" aria-label={t('configure.devices_found_label')}>
            {found.map((f) => (
              <li key={f.path}>
                <button type="button" class="btn btn-small btn-quiet" disabled={p.devices.includes(f.path)} onClick={() => add(f.path)}>
                  <span class="mono">{f.path}</span> <span class="muted">{deviceLabel(f)}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      <p class="hint">
        {p.found === null ? t('configure.devices_unknown') : found.length === 0 ? t('configure.devices_none_found') : t('configure.devices_hint')}
      </p>
    </div>
  );
}

/** The kind, "stable" for by-id links (they survive replugging), and the node a link points to. */
function deviceLabel(d: DeviceT): string {
  const kind = d.kind === 'serial' ? t('configure.device_serial') : t('configure.device_video');
  if (!d.stable) return kind;
  return d.target ? t('configure.device_stable_to', { kind, target: d.target }) : t('configure.device_stable', { kind });
}

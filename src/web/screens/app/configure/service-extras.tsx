import { useId } from 'preact/hooks';
import type { StackConfigT } from '../../../../shared/stack-config.ts';
import { t } from '../../../i18n.ts';
import type { DeviceT } from './configure-api.ts';
import type { ExtrasState, ServiceExtrasState } from './configure-model.ts';
import { DeviceList } from './device-list.tsx';
import { ExtraFolders } from './extra-folders.tsx';
import { TagPicker } from './tag-picker.tsx';

interface Props {
  stack: string;
  services: StackConfigT['services'];
  extras: ExtrasState;
  /** The template's tag per service, read from the running image while no tag was chosen. */
  templateTags: Record<string, string | null>;
  onChange: (service: string, change: Partial<ServiceExtrasState>) => void;
  errors: Record<string, string>;
  devices: DeviceT[] | null;
  /** The image each running service was started from; null while unknown. */
  running: Record<string, string> | null;
}

/** The shared networks a service is on, with its own address where it has one; they are changed in the Networks section. */
function networksLine(networks: StackConfigT['services'][number]['networks']): string {
  if (networks.length === 0) return t('configure.service_networks_none');
  const list = networks.map((n) => (n.ip ? t('configure.service_network_ip', { network: n.network, ip: n.ip }) : n.network)).join(', ');
  return t('configure.service_networks', { networks: list });
}

/** Per service: the image it runs, a version tag, extra host folders and devices; the shared networks it is on. */
export function ServiceExtras(p: Props) {
  const id = useId();
  return (
    <section class="configure-section" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`}>{t('configure.services')}</h3>
      <p class="muted">{t('configure.services_intro')}</p>
      {p.services.map((s) => {
        const e = p.extras[s.name];
        if (!e) return null;
        return (
          <section key={s.name} class="configure-service" aria-labelledby={`${id}-${s.name}`} data-service={s.name}>
            <div class="configure-service-head">
              <h4 id={`${id}-${s.name}`} class="mono">
                {s.name}
              </h4>
              <RunningImage running={p.running?.[s.name] ?? null} composeImage={s.image} known={p.running !== null} />
            </div>
            <TagPicker
              stack={p.stack}
              service={s.name}
              tag={e.tag}
              templateTag={p.templateTags[s.name] ?? null}
              onChange={(tag) => p.onChange(s.name, { tag })}
              error={p.errors[`services.${s.name}.tag`] ?? null}
            />
            <ExtraFolders service={s.name} volumes={e.volumes} onChange={(volumes) => p.onChange(s.name, { volumes })} errors={p.errors} />
            <DeviceList service={s.name} devices={e.devices} onChange={(devices) => p.onChange(s.name, { devices })} errors={p.errors} found={p.devices} />
            <p class="muted configure-shared">{networksLine(s.networks)}</p>
          </section>
        );
      })}
      <p class="hint">{t('configure.networks_below')}</p>
    </section>
  );
}

/** The image the service runs now; when it does not run, the image the compose file names. */
function RunningImage({ running, composeImage, known }: { running: string | null; composeImage: string | null; known: boolean }) {
  if (running) {
    return (
      <span class="configure-image">
        {t('configure.image')} <code>{running}</code>
      </span>
    );
  }
  return (
    <span class="configure-image">
      {known ? t('configure.image_stopped') : t('configure.image_compose')} <code>{composeImage ?? t('configure.image_none')}</code>
    </span>
  );
}

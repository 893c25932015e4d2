import { useId, useMemo } from 'preact/hooks';
import type { JobT } from '../../../../shared/api.ts';
import { ErrorMessage } from '../../../components/error-message.tsx';
import { OutsideConfirm } from '../../../components/outside-confirm.tsx';
import type { Instance } from '../../../forms/connect-field.tsx';
import { advancedCount } from '../../../forms/install-model.ts';
import { MissingFields } from '../../../forms/missing-fields.tsx';
import { Switch } from '../../../forms/switch.tsx';
import { t } from '../../../i18n.ts';
import type { DeviceT, RunningT } from './configure-api.ts';
import { tagOf } from './configure-model.ts';
import { ServiceExtras } from './service-extras.tsx';
import { type SchemaConfig, useConfigureForm } from './use-configure-form.ts';
import { ValueSections } from './value-sections.tsx';

interface Props {
  stack: string;
  config: SchemaConfig;
  instances: (app: string) => Instance[];
  devices: DeviceT[] | null;
  running: RunningT | null;
  onStarted: (job: JobT) => void;
  /** Back to the stored settings: the tab mounts a fresh form. */
  onReset: () => void;
}

/** Fills {name} with the app's own name; the data placeholders stay, since this form does not know DATA_DIR. */
const nameFiller = (stack: string) => (text: string) => text.replaceAll('{name}', stack);

/** The template's form filled with the stored values, the extras per service, and the button that applies them. */
export function ConfigureForm({ stack, config, instances, devices, running, onStarted, onReset }: Props) {
  const id = useId();
  const f = useConfigureForm(stack, config, onStarted);
  const { template, apply, outside } = f;
  const { busy } = apply;
  const templateTags = useMemo(() => Object.fromEntries(config.services.map((s) => [s.name, s.tag === null ? tagOf(s.image) : null])), [config]);
  const hiddenCount = advancedCount(template);
  const fillName = useMemo(() => nameFiller(stack), [stack]);
  return (
    <form ref={f.form} class="card configure-form install-form" onSubmit={f.onSubmit} noValidate aria-labelledby={`${id}-h`}>
      <div class="configure-form-head">
        <h2 id={`${id}-h`}>{t('configure.heading')}</h2>
        {hiddenCount > 0 && <Switch checked={f.advanced} onChange={f.setAdvanced} label={t('install.advanced', { count: hiddenCount })} />}
      </div>
      <MissingFields template={template} missing={f.stillMissing} />
      <ErrorMessage error={f.failure} />
      {outside && (
        <OutsideConfirm
          title={t('configure.outside_confirm', { name: stack })}
          yes={busy ? t('configure.applying') : t('configure.outside_yes')}
          paths={outside}
          onYes={() => void apply.run(outside)}
          onNo={() => f.setOutside(null)}
        >
          <p>{t('configure.outside_intro')}</p>
        </OutsideConfirm>
      )}
      <ValueSections
        template={template}
        advanced={f.advanced}
        values={f.values}
        errors={f.errors}
        kept={f.kept}
        hidden={config.secrets_hidden}
        onChange={f.setValue}
        onKeep={f.keep}
        instances={instances}
        own={running?.containers ?? []}
        fill={fillName}
      />
      <ServiceExtras
        stack={stack}
        services={config.services}
        extras={f.extras}
        templateTags={templateTags}
        onChange={f.changeExtras}
        errors={f.errors}
        devices={devices}
        running={running?.images ?? null}
      />
      <p class="hint configure-apply-hint">{t('configure.apply_hint')}</p>
      <div class="install-nav">
        <button type="button" class="btn" onClick={onReset}>
          {t('configure.reset')}
        </button>
        <button type="submit" class="btn btn-primary" aria-disabled={busy}>
          {busy ? t('configure.applying') : t('configure.apply')}
        </button>
      </div>
    </form>
  );
}

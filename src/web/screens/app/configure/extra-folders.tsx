import { useId } from 'preact/hooks';
import type { ExtraVolumeT } from '../../../../shared/stack-config.ts';
import { FixLine } from '../../../components/path-status.tsx';
import { type PathCheckState, usePathCheck } from '../../../components/use-path-check.ts';
import { t } from '../../../i18n.ts';
import { volumeField } from './configure-model.ts';
import { ExtraField } from './extra-field.tsx';

interface Props {
  service: string;
  volumes: ExtraVolumeT[];
  onChange: (volumes: ExtraVolumeT[]) => void;
  /** Messages by field address (`services.<svc>.volumes.<i>.host`), from the form's check or the server. */
  errors: Record<string, string>;
}

/** Extra host folders of one service: host path (checked while typing), container path, read-only. */
export function ExtraFolders(p: Props) {
  const set = (i: number, change: Partial<ExtraVolumeT>) => p.onChange(p.volumes.map((v, j) => (j === i ? { ...v, ...change } : v)));
  const add = () => {
    p.onChange([...p.volumes, { host: '', container: '', read_only: false }]);
    // The new row's first input takes the focus, so typing can start at once.
    setTimeout(() => (document.querySelector(`[name="${volumeField(p.service, p.volumes.length, 'host')}"]`) as HTMLElement | null)?.focus(), 0);
  };
  return (
    <div class="configure-extras-part">
      <h5>{t('configure.folders')}</h5>
      {p.volumes.length === 0 && <p class="muted">{t('configure.folders_none')}</p>}
      {p.volumes.length > 0 && (
        <ol class="configure-rows">
          {p.volumes.map((v, i) => (
            <FolderRow
              // Rows have no identity of their own; the position is what the server's field names use too.
              key={i}
              service={p.service}
              index={i}
              volume={v}
              onChange={(c) => set(i, c)}
              onRemove={() => p.onChange(p.volumes.filter((_, j) => j !== i))}
              errors={p.errors}
            />
          ))}
        </ol>
      )}
      <button type="button" class="btn btn-small" onClick={add}>
        {t('configure.folder_add')}
      </button>
    </div>
  );
}

function FolderRow(p: {
  service: string;
  index: number;
  volume: ExtraVolumeT;
  onChange: (c: Partial<ExtraVolumeT>) => void;
  onRemove: () => void;
  errors: Record<string, string>;
}) {
  const id = useId();
  const hostName = volumeField(p.service, p.index, 'host');
  const containerName = volumeField(p.service, p.index, 'container');
  const check = usePathCheck(p.volume.host);
  const n = p.index + 1;
  return (
    <li>
      <fieldset class="configure-row configure-folder">
        <legend>{t('configure.folder_n', { n })}</legend>
        <ExtraField
          id={`${id}-h`}
          label={t('configure.folder_host')}
          name={hostName}
          value={p.volume.host}
          placeholder="/srv/media"
          error={p.errors[hostName] ?? null}
          describedBy={`${id}-hc`}
          below={<HostCheck id={`${id}-hc`} check={check} />}
          onInput={(v) => p.onChange({ host: v })}
        />
        <ExtraField
          id={`${id}-c`}
          label={t('configure.folder_container')}
          name={containerName}
          value={p.volume.container}
          placeholder="/media"
          error={p.errors[containerName] ?? null}
          onInput={(v) => p.onChange({ container: v })}
        />
        <div class="configure-row-tail">
          <label class="configure-check">
            <input
              type="checkbox"
              name={`services.${p.service}.volumes.${p.index}.read_only`}
              checked={p.volume.read_only}
              onChange={(e) => p.onChange({ read_only: e.currentTarget.checked })}
            />
            {t('configure.folder_read_only')}
          </label>
          <button type="button" class="btn btn-small btn-quiet" aria-label={t('configure.folder_remove_label', { n })} onClick={p.onRemove}>
            {t('configure.remove')}
          </button>
        </div>
      </fieldset>
    </li>
  );
}

type Check = PathCheckState;

/** What the host says about the folder: exists, writable, inside the base folder, and the `.env` line that fixes it. */
function HostCheck({ id, check }: { id: string; check: Check }) {
  if (check.kind === 'idle') {
    return (
      <p class="hint" id={id}>
        {t('configure.folder_host_hint')}
      </p>
    );
  }
  if (check.kind === 'checking') {
    return (
      <p class="hint" id={id} role="status">
        {t('paths.checking')}
      </p>
    );
  }
  if (check.kind === 'failed') {
    return (
      <p class="hint" id={id} role="status">
        {t('configure.folder_check_failed')}
      </p>
    );
  }
  const r = check.result;
  if (r.reason === 'not_allowed') {
    return (
      <p class="configure-path-check path-warn" id={id} role="status">
        <span aria-hidden="true">⚠ </span>
        {t('configure.path_not_allowed')}
      </p>
    );
  }
  const facts = [
    r.exists ? t('configure.path_exists') : t('configure.path_missing'),
    ...(r.exists ? [r.writable ? t('configure.path_writable') : t('configure.path_read_only')] : []),
    r.inside_base ? t('configure.path_inside', { base: r.base }) : t('configure.path_outside', { base: r.base }),
  ];
  const good = r.exists && r.inside_base;
  return (
    <div class={`configure-path-check ${good ? 'path-ok' : 'path-warn'}`} id={id} role="status">
      <p>
        <span aria-hidden="true">{good ? '✓ ' : '⚠ '}</span>
        {facts.join(' · ')}
      </p>
      {r.fix && <FixLine fix={r.fix} />}
    </div>
  );
}

import { useId, useState } from 'preact/hooks';
import { errorText } from '../../../components/error-message.tsx';
import { t } from '../../../i18n.ts';
import { getImageTags, type ImageTagsT } from './configure-api.ts';

type Load = { kind: 'idle' } | { kind: 'loading' } | { kind: 'done'; tags: ImageTagsT } | { kind: 'failed'; error: unknown };

interface Props {
  stack: string;
  service: string;
  /** The chosen tag; null keeps the template's. */
  tag: string | null;
  /** The template's own tag, when known (read from the running image while no tag is chosen). */
  templateTag: string | null;
  onChange: (tag: string | null) => void;
  error: string | null;
}

/**
 * The version tag of one service. The list comes from the registry (or the host's images) and is
 * asked for only on request, since a registry call can be slow or rate limited.
 */
export function TagPicker(p: Props) {
  const id = useId();
  const [load, setLoad] = useState<Load>({ kind: 'idle' });
  const fetchTags = () => {
    setLoad({ kind: 'loading' });
    getImageTags(p.stack, p.service).then(
      (tags) => setLoad({ kind: 'done', tags }),
      (error: unknown) => setLoad({ kind: 'failed', error }),
    );
  };
  const listed = load.kind === 'done' ? load.tags.tags : [];
  const choices = [...new Set([...(p.tag ? [p.tag] : []), ...listed])];
  const statusId = `${id}-status`;
  return (
    <div class="ifield configure-tag">
      <div class="ifield-label">
        <label for={id}>{t('configure.tag')}</label>
      </div>
      <div class="ifield-row">
        <select
          id={id}
          name={`services.${p.service}.tag`}
          value={p.tag ?? ''}
          aria-invalid={p.error ? 'true' : undefined}
          aria-describedby={statusId}
          onChange={(e) => p.onChange(e.currentTarget.value === '' ? null : e.currentTarget.value)}
        >
          <option value="">{p.templateTag ? t('configure.tag_default_is', { tag: p.templateTag }) : t('configure.tag_default')}</option>
          {choices.map((tag) => (
            <option key={tag} value={tag}>
              {tag}
            </option>
          ))}
        </select>
        {load.kind !== 'done' && (
          <button type="button" class="btn btn-small" aria-disabled={load.kind === 'loading'} onClick={() => load.kind !== 'loading' && fetchTags()}>
            {t('configure.tag_load')}
          </button>
        )}
      </div>
      <p class="hint" id={statusId} role="status">
        <TagStatus load={load} />
      </p>
      {p.error && <p class="field-error">{p.error}</p>}
    </div>
  );
}

function TagStatus({ load }: { load: Load }) {
  switch (load.kind) {
    case 'idle':
      return <>{t('configure.tag_hint')}</>;
    case 'loading':
      return <>{t('configure.tag_loading')}</>;
    case 'failed':
      return <>{t('configure.tag_failed', { error: errorText(load.error) })}</>;
    case 'done': {
      const r = load.tags;
      const count = r.tags.length;
      if (r.source === 'registry') return <>{t('configure.tag_from_registry', { count })}</>;
      return (
        <>
          {t('configure.tag_from_local', { count })}
          {r.note && <span class="configure-tag-note"> {t('configure.tag_note', { note: r.note })}</span>}
        </>
      );
    }
  }
}

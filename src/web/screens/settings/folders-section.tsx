import type { PathKey } from '../../../shared/settings-keys.ts';
import { PathField } from '../../forms/path-field.tsx';
import { type MessageKey, t } from '../../i18n.ts';
import { FolderMove } from './folder-move.tsx';
import type { SectionProps } from './form-bind.ts';
import { Section } from './section.tsx';

const LABELS: Record<PathKey, MessageKey> = {
  BASE_DIR: 'settings.base_dir',
  LIBRARY_DIR: 'settings.library_dir',
  DATA_DIR: 'settings.data_dir',
  BACKUP_DIR: 'settings.backup_dir',
};

/** BASE_DIR and the folders inside it, each checked live; the folder in use is shown until a move or a restart. */
export function FoldersSection(p: SectionProps & { onMoved: () => void }) {
  const field = (k: PathKey) => {
    const b = p.text(k);
    return (
      <PathField
        key={k}
        label={t(LABELS[k])}
        name={k}
        value={b.value}
        error={b.error}
        onInput={k === 'BASE_DIR' ? p.setBase : b.onInput}
        hint={k === 'BASE_DIR' ? t('settings.base_dir_hint') : t('settings.derived_hint')}
        inUse={p.saved.paths_in_use[k]}
      />
    );
  };
  return (
    <Section id="settings-folders" title={t('settings.folders')} intro={t('settings.folders_intro')}>
      {(['BASE_DIR', 'LIBRARY_DIR', 'DATA_DIR', 'BACKUP_DIR'] as const).map(field)}
      <FolderMove saved={p.saved} onMoved={p.onMoved} />
    </Section>
  );
}

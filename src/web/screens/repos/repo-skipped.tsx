import { t } from '../../i18n.ts';
import type { RepoT } from './repos-api.ts';

/** The element id the store links to (`/repos#skipped-<id>`). */
export const skippedAnchor = (repoId: string) => `skipped-${repoId}`;

const FORMAT_KEY = {
  kade: 'repos.format_kade',
  runtipi: 'repos.format_runtipi',
  casaos: 'repos.format_casaos',
  portainer: 'repos.format_portainer',
  cosmos: 'repos.format_cosmos',
  mixed: 'repos.format_mixed',
} as const;

/** The import report's line: the store format the repo is in and how many of its apps are in Kade's store. */
export function RepoImport({ repo }: { repo: RepoT }) {
  if (!repo.status.commit) return null;
  // Fetched, yet not one app folder: most often the folder with the apps is wrong. Said, so the empty store is explained.
  if (repo.import.found === 0 && repo.skipped.length === 0) {
    return (
      <p class="repo-no-apps" role="note">
        {t('repos.no_apps', { folder: repo.subdirectory || '/', branch: repo.branch })}
      </p>
    );
  }
  if (repo.import.found === 0) return null;
  const { format, imported, found, notes, with_powers: powers } = repo.import;
  return (
    <>
      <p class="repo-import">{t('repos.import_line', { format: t(FORMAT_KEY[format]), imported, found })}</p>
      {powers > 0 && <p class="repo-import-powers">{powers === 1 ? t('repos.import_powers_one') : t('repos.import_powers_many', { count: powers })}</p>}
      {notes.length > 0 && (
        <details class="repo-import-notes">
          <summary>{t('repos.import_notes')}</summary>
          <ul>
            {notes.map((n) => (
              <li key={n.app}>
                <code>{n.app}</code> {n.notes.join('; ')}
              </li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}

/** The apps of a repo that could not be imported or failed validation, each with the server's reason. */
export function RepoSkipped({ repo }: { repo: RepoT }) {
  const n = repo.skipped.length;
  if (n === 0) return null;
  const anchor = skippedAnchor(repo.id);
  // A long list starts folded, unless the store linked straight to it.
  const open = n <= 10 || (typeof location !== 'undefined' && location.hash === `#${anchor}`);
  return (
    <section class="repo-skipped" id={anchor} tabIndex={-1} aria-label={t('repos.skipped_many', { count: n })}>
      <details open={open}>
        <summary>
          <strong>{n === 1 ? t('repos.skipped_one') : t('repos.skipped_many', { count: n })}</strong>
        </summary>
        <ul>
          {repo.skipped.map((s) => (
            <li key={s.app}>
              <code>{s.app || t('repos.skipped_folder')}</code> {s.reason}
            </li>
          ))}
        </ul>
        <p class="muted">{t('repos.skipped_fix')}</p>
      </details>
    </section>
  );
}

import type { StoreAppT, StoreFormat } from '../../../shared/api.ts';
import type { Category } from '../../../shared/categories.ts';
import { installPath } from '../../app-paths.ts';
import { storePowerText } from '../../components/power-text.ts';
import { getLang, t } from '../../i18n.ts';
import { onLinkClick } from '../../router.ts';

/** Looks up a category by id; an id the server does not know shows as its raw text in grey. */
export type CategoryLookup = (id: string) => Category | undefined;

export const categoryName = (c: Category): string => c.name[getLang()];

// The page's CSP allows only same-origin images; a remote icon would be blocked, so it is not even tried.
const sameOrigin = (icon: string | null): icon is string => icon !== null && /^\/(?!\/)/.test(icon);

const FALLBACK_COLOUR = '#64748b';

/** The stores' own names for their formats: the same in every language. */
export const FORMAT_NAMES: Record<StoreFormat, string> = { kade: 'Kade', runtipi: 'Runtipi', casaos: 'CasaOS', portainer: 'Portainer', cosmos: 'Cosmos' };

/** One app of the store: what it is, where it comes from, and whether it is installed already. */
/** `canInstall`: operators and admins get the install action (unless only an admin may install the app); viewers only look. */
export function AppCard({ app, category, canInstall = false }: { app: StoreAppT; category: CategoryLookup; canInstall?: boolean }) {
  const headingId = `store-${app.repo}-${app.app}`;
  const description = getLang() === 'nl' && app.description_nl ? app.description_nl : app.description;
  const colour = category(app.categories[0] ?? '')?.color ?? FALLBACK_COLOUR;
  return (
    <li class="store-card card" aria-labelledby={headingId}>
      <div class="store-card-head">
        {sameOrigin(app.icon) ? (
          <img class="store-avatar" src={app.icon} alt="" width={48} height={48} />
        ) : (
          <span class="store-avatar store-letter" style={{ '--cat': colour }} aria-hidden="true">
            {(/[\p{L}\p{N}]/u.exec(app.name)?.[0] ?? '?').toLocaleUpperCase()}
          </span>
        )}
        <div class="store-card-title">
          <h2 id={headingId}>{app.name}</h2>
          <p class="store-card-meta">
            <span>{t('store.version', { version: app.version })}</span>
            <span>{t('store.from', { repo: app.repo })}</span>
            <span class="store-format" title={t('store.format_title')}>
              {t('store.format', { format: FORMAT_NAMES[app.format] })}
            </span>
          </p>
        </div>
      </div>
      {app.installed.length > 0 && <p class="store-installed">{t('store.installed', { names: app.installed.join(', ') })}</p>}
      {description && <p class="store-card-desc">{description}</p>}
      <ul class="store-chips" aria-label={t('store.categories_label')}>
        {app.categories.map((id) => {
          const c = category(id);
          return (
            <li key={id} class="store-chip" style={{ '--cat': c?.color ?? FALLBACK_COLOUR }}>
              {c ? categoryName(c) : id}
            </li>
          );
        })}
      </ul>
      {app.tags.length > 0 && (
        <ul class="store-tags" aria-label={t('store.tags_label')}>
          {app.tags.map((tag) => (
            <li key={tag}>{tag}</li>
          ))}
        </ul>
      )}
      {app.powers.length > 0 && <StorePowers app={app} />}
      {app.needs_admin ? (
        <p class="store-needs-admin">{t('store.needs_admin')}</p>
      ) : (
        canInstall && (
          <div class="store-card-actions">
            <a
              href={installPath(app.repo, app.app)}
              class="btn btn-small btn-primary"
              aria-label={t('store.install_label', { name: app.name })}
              onClick={onLinkClick}
            >
              {t('store.install')}
            </a>
          </div>
        )
      )}
    </li>
  );
}

/** The powers over the host the app gets, as a badge and a short list: what the install's review will ask to allow. */
function StorePowers({ app }: { app: StoreAppT }) {
  const lines = [...new Set(app.powers.map(storePowerText))];
  const id = `store-powers-${app.repo}-${app.app}`;
  return (
    <div class="store-powers">
      <p class="store-power-badge" id={id}>
        {t('store.powers_badge')}
      </p>
      <ul aria-labelledby={id}>
        {lines.map((l) => (
          <li key={l}>{l}</li>
        ))}
      </ul>
    </div>
  );
}

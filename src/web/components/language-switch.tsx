import { getLang, LANGS, type Lang, setLang, t } from '../i18n.ts';

/** A labelled select; each language is named in its own language so it can be found in either. */
export function LanguageSwitch() {
  const lang = getLang();
  return (
    <label class="lang-switch">
      <span class="sr-only">{t('lang.label')}</span>
      <svg aria-hidden="true" viewBox="0 0 24 24" class="icon">
        <circle cx="12" cy="12" r="9" />
        <path d="M3 12h18M12 3c2.5 2.7 3.7 5.7 3.7 9s-1.2 6.3-3.7 9c-2.5-2.7-3.7-5.7-3.7-9S9.5 5.7 12 3z" />
      </svg>
      <select value={lang} onChange={(e) => setLang(e.currentTarget.value as Lang)}>
        {LANGS.map((l) => (
          <option key={l} value={l} lang={l}>
            {t(l === 'nl' ? 'lang.nl' : 'lang.en')}
          </option>
        ))}
      </select>
    </label>
  );
}

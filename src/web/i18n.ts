import { useEffect, useState } from 'preact/hooks';
import { en, type MessageKey } from './messages/en.ts';
import { nl } from './messages/nl.ts';

export type { MessageKey };
export type Lang = 'nl' | 'en';
export type MessageParams = Record<string, string | number | boolean>;

export const LANGS: readonly Lang[] = ['nl', 'en'];
const TABLES: Record<Lang, Record<MessageKey, string>> = { nl, en };
const STORAGE_KEY = 'kade.lang';

function readStored(): Lang | null {
  try {
    const v = localStorage.getItem(STORAGE_KEY);
    return v === 'nl' || v === 'en' ? v : null;
  } catch {
    // Storage can be disabled (privacy settings); the browser language decides then.
    return null;
  }
}

/** The stored choice, else the browser language: Dutch for any nl-* locale, English otherwise. */
export function initialLang(): Lang {
  return readStored() ?? (navigator.language.toLowerCase().startsWith('nl') ? 'nl' : 'en');
}

let current: Lang = initialLang();
const listeners = new Set<(l: Lang) => void>();

export function getLang(): Lang {
  return current;
}

export function setLang(lang: Lang): void {
  current = lang;
  document.documentElement.lang = lang;
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // Not persisting is acceptable: the switch still applies to this page.
  }
  for (const fn of listeners) fn(lang);
}

/** Re-renders the calling component when the language changes. */
export function useLang(): Lang {
  const [lang, set] = useState(current);
  useEffect(() => {
    listeners.add(set);
    set(current);
    return () => {
      listeners.delete(set);
    };
  }, []);
  return lang;
}

/** Translates a key into the current language, filling `{placeholder}`s from params. */
export function t(key: MessageKey, params: MessageParams = {}, lang: Lang = current): string {
  const template = TABLES[lang][key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = params[name];
    // A missing param stays visible as `{name}` so the gap is noticed rather than hidden.
    return v === undefined ? whole : String(v);
  });
}

/** Whether a string is one of our keys; used to look up `error.<code>` for codes the server may add later. */
export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(en, key);
}

/** Formats a time of day in the current language. */
export function formatTime(d: Date): string {
  return d.toLocaleTimeString(current === 'nl' ? 'nl-NL' : 'en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

import type { Lang } from '../i18n.ts';

/** A template text in the current language; a plain string serves both. */
export const textIn = (text: string | { en: string; nl: string } | undefined, lang: Lang): string =>
  text === undefined ? '' : typeof text === 'string' ? text : text[lang];

/** 32 characters of base64url from 24 random bytes, the same length the server generates. */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

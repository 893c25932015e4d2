import type { Lang } from '../i18n.ts';

/** A template text in the current language; a plain string serves both. */
export const textIn = (text: string | { en: string; nl: string } | undefined, lang: Lang): string =>
  text === undefined ? '' : typeof text === 'string' ? text : text[lang];

/** 32 characters (or the field's min_length, at most its max_length) of base64url, or of hex, as the server generates them. */
export function randomSecret(f?: {
  generate_encoding?: 'base64url' | 'hex' | undefined;
  min_length?: number | undefined;
  max_length?: number | undefined;
}): string {
  const len = Math.min(Math.max(32, f?.min_length ?? 0), f?.max_length ?? Number.POSITIVE_INFINITY);
  if (f?.generate_encoding === 'hex') {
    const hex = crypto.getRandomValues(new Uint8Array(Math.ceil(len / 2)));
    return Array.from(hex, (b) => b.toString(16).padStart(2, '0'))
      .join('')
      .slice(0, len);
  }
  const bytes = crypto.getRandomValues(new Uint8Array(Math.ceil(len * 0.75) + 1));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '').slice(0, len);
}

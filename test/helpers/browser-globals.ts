/**
 * The two browser globals `src/web/i18n.ts` reads when it loads (the browser language, the document element), for
 * unit tests that import interface modules in Node. Import those modules after calling this, with `await import()`.
 */
export function stubBrowserGlobals(language = 'en-US'): void {
  if (!('navigator' in globalThis)) Object.defineProperty(globalThis, 'navigator', { value: { language }, configurable: true });
  if (!('document' in globalThis)) Object.defineProperty(globalThis, 'document', { value: { documentElement: {} }, configurable: true });
}

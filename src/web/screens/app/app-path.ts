/** The tabs of the app view: the tab lives in the hash so a reload keeps it. */
export const TABS = ['overview', 'configure', 'files', 'backups'] as const;
export type Tab = (typeof TABS)[number];

/** The tab named by a hash such as `#files`, if the user may see it; the overview otherwise. */
export function tabOfHash(hash: string, allowed: readonly Tab[]): Tab {
  const name = hash.replace(/^#/, '');
  return allowed.find((tab) => tab === name) ?? 'overview';
}

/** Where arrow keys, Home and End move the focus in a tab list (wrapping around); null for other keys. */
export function tabAfterKey(tabs: readonly Tab[], current: Tab, key: string): Tab | null {
  const i = tabs.indexOf(current);
  const n = tabs.length;
  if (n === 0 || i < 0) return null;
  switch (key) {
    case 'ArrowRight':
      return tabs[(i + 1) % n] ?? null;
    case 'ArrowLeft':
      return tabs[(i - 1 + n) % n] ?? null;
    case 'Home':
      return tabs[0] ?? null;
    case 'End':
      return tabs[n - 1] ?? null;
    default:
      return null;
  }
}

/** How many lines an editor's text has, as an editor counts them: a final newline does not start a line. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  return text.replace(/\n$/, '').split('\n').length;
}

/**
 * The seventeen app categories: the one source for interface and backend (served by /api/categories).
 * Colours are mid-tones with a contrast of at least 3:1 against both white and black (tested).
 */
export interface Category {
  id: string;
  name: { nl: string; en: string };
  color: string;
  icon: string;
}

export const FALLBACK_CATEGORY = 'overig';

export const CATEGORIES: readonly Category[] = [
  { id: 'ai', name: { nl: 'AI', en: 'AI' }, color: '#8b5cf6', icon: 'sparkles' },
  { id: 'automation', name: { nl: 'Automatisering', en: 'Automation' }, color: '#d97706', icon: 'workflow' },
  { id: 'backup', name: { nl: 'Back-up', en: 'Backup' }, color: '#0891b2', icon: 'archive' },
  { id: 'books', name: { nl: 'Boeken', en: 'Books' }, color: '#a16207', icon: 'book-open' },
  { id: 'communication', name: { nl: 'Communicatie', en: 'Communication' }, color: '#2563eb', icon: 'message-circle' },
  { id: 'developer', name: { nl: 'Ontwikkeling', en: 'Development' }, color: '#4f46e5', icon: 'code' },
  { id: 'downloads', name: { nl: 'Downloads', en: 'Downloads' }, color: '#059669', icon: 'download' },
  { id: 'finance', name: { nl: 'Financiën', en: 'Finance' }, color: '#16a34a', icon: 'wallet' },
  { id: 'gaming', name: { nl: 'Games', en: 'Gaming' }, color: '#db2777', icon: 'gamepad' },
  { id: 'home', name: { nl: 'Slim huis', en: 'Smart home' }, color: '#ea580c', icon: 'house' },
  { id: 'media', name: { nl: 'Media', en: 'Media' }, color: '#dc2626', icon: 'film' },
  { id: 'monitoring', name: { nl: 'Monitoring', en: 'Monitoring' }, color: '#0d9488', icon: 'activity' },
  { id: 'network', name: { nl: 'Netwerk', en: 'Network' }, color: '#0284c7', icon: 'network' },
  { id: 'photos', name: { nl: "Foto's", en: 'Photos' }, color: '#c026d3', icon: 'image' },
  { id: 'productivity', name: { nl: 'Productiviteit', en: 'Productivity' }, color: '#65a30d', icon: 'check-square' },
  { id: 'security', name: { nl: 'Beveiliging', en: 'Security' }, color: '#e11d48', icon: 'shield' },
  { id: FALLBACK_CATEGORY, name: { nl: 'Overig', en: 'Other' }, color: '#64748b', icon: 'package' },
];

export const CATEGORY_IDS: ReadonlySet<string> = new Set(CATEGORIES.map((c) => c.id));

/** WCAG relative luminance of a #rrggbb colour. */
export function luminance(hex: string): number {
  const channel = (i: number) => {
    const v = Number.parseInt(hex.slice(1 + i * 2, 3 + i * 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

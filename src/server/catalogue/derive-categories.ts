import { CATEGORY_IDS, FALLBACK_CATEGORY } from '../../shared/categories.ts';

/** Words that place an app in a category when its template names none (apps from external repos). */
const KEYWORDS: Record<string, readonly string[]> = {
  ai: ['ai', 'llm', 'chatgpt', 'ollama', 'machine learning', 'gpt'],
  automation: ['automation', 'workflow', 'home automation', 'cron', 'n8n', 'zapier'],
  backup: ['backup', 'back-up', 'sync', 'snapshot', 'restic'],
  books: ['book', 'ebook', 'e-book', 'comics', 'library', 'reading'],
  communication: ['chat', 'mail', 'email', 'e-mail', 'messaging', 'matrix', 'voip', 'forum'],
  developer: ['developer', 'development', 'git', 'ci', 'code', 'ide', 'database', 'api'],
  downloads: ['download', 'torrent', 'usenet', 'bittorrent', 'sonarr', 'radarr'],
  finance: ['finance', 'budget', 'money', 'invoice', 'accounting', 'expense'],
  gaming: ['game', 'gaming', 'minecraft', 'steam'],
  home: ['smart home', 'home assistant', 'iot', 'zigbee', 'mqtt', 'domotica'],
  media: ['media', 'video', 'movie', 'tv', 'music', 'audio', 'streaming', 'podcast', 'jellyfin', 'plex'],
  monitoring: ['monitoring', 'uptime', 'metrics', 'status', 'dashboard', 'logs', 'alert'],
  network: ['network', 'dns', 'proxy', 'vpn', 'firewall', 'adblock', 'reverse proxy', 'debug'],
  photos: ['photo', 'photos', 'gallery', 'image', 'camera'],
  productivity: ['productivity', 'notes', 'todo', 'wiki', 'calendar', 'office', 'documents', 'bookmark'],
  security: ['security', 'password', 'passwords', 'vault', 'auth', 'sso', '2fa'],
};

const words = (s: string) => ` ${s.toLowerCase().replace(/[^a-z0-9+#-]+/g, ' ')} `;

/**
 * The categories of an app: those its template names (known ids only), else derived from its tags and
 * description, else the fallback.
 */
export function categoriesOf(declared: readonly string[], tags: readonly string[], description: string): string[] {
  const known = declared.filter((c) => CATEGORY_IDS.has(c));
  if (known.length > 0) return [...new Set(known)];
  const tagText = words(tags.join(' '));
  const descText = words(description);
  const found = Object.entries(KEYWORDS)
    .filter(([, keys]) => keys.some((k) => tagText.includes(` ${k} `) || descText.includes(` ${k} `)))
    .map(([id]) => id);
  return found.length > 0 ? found : [FALLBACK_CATEGORY];
}

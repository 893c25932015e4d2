import type { ContainerEntryT } from './containers-api.ts';

export const SHOWS = ['all', 'running', 'stopped', 'apps', 'other'] as const;
export type Show = (typeof SHOWS)[number];

/** The containers a search text (name, image, app, compose project or service, id) and a choice of kind keep. */
export function filterContainers(list: readonly ContainerEntryT[], text: string, show: Show): ContainerEntryT[] {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return list.filter((c) => {
    const running = c.state === 'running' || c.state === 'restarting';
    if (show === 'running' && !running) return false;
    if (show === 'stopped' && running) return false;
    if (show === 'apps' && !c.managed) return false;
    if (show === 'other' && c.managed) return false;
    const hay = [c.name, c.image, c.stack ?? '', c.project ?? '', c.service ?? '', c.id.slice(0, 12)].join(' ').toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

import type { TargetedMouseEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * A very small history router: the server answers index.html for every
 * non-API path, so each screen has a real address that survives a reload.
 */
const listeners = new Set<(path: string) => void>();

export function currentPath(): string {
  return location.pathname;
}

/** Goes to `path`, which may end in a `#fragment`; screens are chosen by the path alone. */
export function navigate(path: string): void {
  if (path === location.pathname + location.hash) return;
  history.pushState(null, '', path);
  for (const fn of listeners) fn(currentPath());
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const onPop = () => setPath(currentPath());
    listeners.add(setPath);
    addEventListener('popstate', onPop);
    return () => {
      listeners.delete(setPath);
      removeEventListener('popstate', onPop);
    };
  }, []);
  return path;
}

/** Client-side navigation for plain left clicks; modified clicks keep the browser's own behaviour. */
export function onLinkClick(e: TargetedMouseEvent<HTMLAnchorElement>): void {
  if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const href = e.currentTarget.getAttribute('href');
  if (!href?.startsWith('/')) return;
  e.preventDefault();
  navigate(href);
}

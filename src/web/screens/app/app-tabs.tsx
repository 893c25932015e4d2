import type { RefObject, TargetedKeyboardEvent } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Role } from '../../../shared/roles.ts';
import { t } from '../../i18n.ts';
import { type Tab, tabAfterKey, tabOfHash } from './app-path.ts';

// Module constants, so the hook's listener is not re-added on every render.
const VIEWER_TABS: readonly Tab[] = ['overview', 'files', 'backups'];
const OPERATOR_TABS: readonly Tab[] = ['overview', 'configure', 'files', 'backups'];

/** The tab named in the URL hash (so a reload keeps it), the way to change it, and the tabs the role sees. */
export function useHashTab(role: Role): [Tab, (tab: Tab) => void, readonly Tab[]] {
  const tabs = role === 'viewer' ? VIEWER_TABS : OPERATOR_TABS;
  const [tab, setTab] = useState<Tab>(() => tabOfHash(location.hash, tabs));
  useEffect(() => {
    const onHash = () => setTab(tabOfHash(location.hash, tabs));
    onHash();
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, [tabs]);
  const select = useCallback((next: Tab) => {
    // Replaced, not pushed: Back leaves the app instead of walking through the tabs.
    history.replaceState(history.state, '', `${location.pathname}${location.search}#${next}`);
    setTab(next);
  }, []);
  return [tab, select, tabs];
}

/** The tabs opened so far, the current one included. */
export function useVisited(tab: Tab): ReadonlySet<Tab> {
  // Adding is idempotent, and every change of tab renders anyway, so a ref is enough.
  const seen = useRef(new Set<Tab>());
  seen.current.add(tab);
  return seen.current;
}

/**
 * Keeps the selected tab in sight where the list scrolls sideways (a phone): when the tab changes and when the list's
 * width does. Only the list scrolls, never the page.
 */
function useSelectedInSight(list: RefObject<HTMLDivElement | null>, current: Tab): void {
  useEffect(() => {
    const el = list.current;
    if (!el) return;
    const show = () => {
      const tab = el.querySelector<HTMLElement>('[aria-selected="true"]');
      if (!tab) return;
      const box = el.getBoundingClientRect();
      const at = tab.getBoundingClientRect();
      if (at.left < box.left) el.scrollLeft -= box.left - at.left;
      else if (at.right > box.right) el.scrollLeft += at.right - box.right;
    };
    // A ResizeObserver calls back once when it starts observing, so this covers the first showing too.
    const watch = new ResizeObserver(show);
    watch.observe(el);
    return () => watch.disconnect();
  }, [list, current]);
}

/** Tabs after the WAI-ARIA pattern: one tab stop, arrows (and Home/End) move and select. */
interface TabListProps {
  tabs: readonly Tab[];
  current: Tab;
  /** Tabs whose panel exists; only those can be pointed at with aria-controls. */
  visited: ReadonlySet<Tab>;
  onSelect: (tab: Tab) => void;
}

export function TabList({ tabs, current, visited, onSelect }: TabListProps) {
  const list = useRef<HTMLDivElement>(null);
  useSelectedInSight(list, current);
  const onKey = (e: TargetedKeyboardEvent<HTMLDivElement>) => {
    const next = tabAfterKey(tabs, current, e.key);
    if (!next) return;
    e.preventDefault();
    onSelect(next);
    list.current?.querySelector<HTMLButtonElement>(`#appview-tab-${next}`)?.focus();
  };
  return (
    <div class="appview-tabs" role="tablist" aria-label={t('appview.tabs_label')} ref={list} onKeyDown={onKey}>
      {tabs.map((tab) => {
        const selected = tab === current;
        return (
          <button
            key={tab}
            type="button"
            role="tab"
            id={`appview-tab-${tab}`}
            class="appview-tab"
            aria-selected={selected}
            aria-controls={visited.has(tab) ? `appview-panel-${tab}` : undefined}
            tabIndex={selected ? 0 : -1}
            onClick={() => onSelect(tab)}
          >
            {t(`appview.tab.${tab}`)}
          </button>
        );
      })}
    </div>
  );
}

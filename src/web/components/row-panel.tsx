import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * The panel a list row opens (an edit form, a question): opened, the first element that `focus` names inside it
 * takes the focus; closed, the focus goes back to the button that opened it.
 */
export function useRowPanel<M extends string>(focus: string) {
  const [mode, setMode] = useState<M | 'idle'>('idle');
  const panel = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement | null>(null);
  useEffect(() => {
    if (mode === 'idle') trigger.current?.focus();
    else panel.current?.querySelector<HTMLElement>(focus)?.focus();
  }, [mode]);
  /** Opens `m` from the button clicked, or closes it when it is open. */
  const toggle = (m: M, e: { currentTarget: HTMLButtonElement }) => {
    trigger.current = e.currentTarget;
    setMode(mode === m ? 'idle' : m);
  };
  return { mode, setMode, panel, toggle };
}

/** A small button that opens and closes a row's panel, named for the row it acts on. */
export function PanelButton(p: {
  open: boolean;
  label: string;
  class?: string;
  onClick: (e: { currentTarget: HTMLButtonElement }) => void;
  children: ComponentChildren;
}) {
  return (
    <button type="button" class={p.class ? `btn btn-small ${p.class}` : 'btn btn-small'} aria-expanded={p.open} aria-label={p.label} onClick={p.onClick}>
      {p.children}
    </button>
  );
}

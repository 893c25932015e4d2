import { useEffect, useRef, useState } from 'preact/hooks';
import { appPath } from '../../../app-paths.ts';
import { t } from '../../../i18n.ts';
import { onLinkClick } from '../../../router.ts';
import { AdoptForm } from './adopt-form.tsx';
import './adopt.css';

const PANEL_ID = 'adopt-panel';

/** Shared by the button in the page tools and the form under the heading. */
export interface AdoptPanelState {
  open: boolean;
  /** The app adopted last, confirmed until the form is opened again. */
  adopted: string | null;
  toggle: () => void;
  cancel: () => void;
  done: (name: string) => void;
  toggleRef: { current: HTMLButtonElement | null };
}

/** `onAdopted` reloads the list, so the new app shows at once instead of at the next poll. */
export function useAdoptPanel(onAdopted: () => void): AdoptPanelState {
  const [open, setOpen] = useState(false);
  const [adopted, setAdopted] = useState<string | null>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);
  return {
    open,
    adopted,
    toggleRef,
    toggle: () => {
      setAdopted(null);
      setOpen(!open);
    },
    cancel: () => {
      setOpen(false);
      toggleRef.current?.focus();
    },
    done: (name) => {
      setOpen(false);
      setAdopted(name);
      onAdopted();
    },
  };
}

export function AdoptToggle({ panel }: { panel: AdoptPanelState }) {
  return (
    <button type="button" ref={panel.toggleRef} class="btn btn-small adopt-toggle" aria-expanded={panel.open} aria-controls={PANEL_ID} onClick={panel.toggle}>
      {t('adopt.open')}
    </button>
  );
}

/** The form while open; afterwards the confirmation with a link to the adopted app's view. */
export function AdoptPanel({ panel }: { panel: AdoptPanelState }) {
  const notice = useRef<HTMLParagraphElement>(null);
  // The form (and its focused button) is gone after success: the focus goes to what replaced it.
  useEffect(() => {
    if (panel.adopted) notice.current?.focus();
  }, [panel.adopted]);
  return (
    <div id={PANEL_ID} class="adopt">
      {/* Always in the page, so screen readers announce what is put into it. */}
      <div role="status">
        {panel.adopted && (
          <p class="notice adopt-done" ref={notice} tabIndex={-1}>
            {t('adopt.done', { name: panel.adopted })}{' '}
            <a href={appPath(panel.adopted)} onClick={onLinkClick}>
              {t('adopt.done_open', { name: panel.adopted })}
            </a>
          </p>
        )}
      </div>
      {panel.open && <AdoptForm onAdopted={(s) => panel.done(s.name)} onCancel={panel.cancel} />}
    </div>
  );
}

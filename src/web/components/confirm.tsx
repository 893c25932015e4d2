import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../i18n.ts';
import './confirm.css';

interface ConfirmProps {
  title: string;
  yes: string;
  danger?: boolean;
  onYes: () => void;
  onNo: () => void;
  children: ComponentChildren;
}

/** A question in place: the focus starts on Cancel, so Enter never restores, deletes or moves by accident. */
export function Confirm({ title, yes, danger, onYes, onNo, children }: ConfirmProps) {
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  return (
    <fieldset class="confirm">
      <legend class="confirm-title">{title}</legend>
      {children}
      <p class="confirm-buttons">
        <button type="button" class={danger ? 'btn btn-small btn-danger' : 'btn btn-small btn-primary'} onClick={onYes}>
          {yes}
        </button>
        <button type="button" class="btn btn-small" ref={cancel} onClick={onNo}>
          {t('backups.cancel')}
        </button>
      </p>
    </fieldset>
  );
}

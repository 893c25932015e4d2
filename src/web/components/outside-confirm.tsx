import type { ComponentChildren } from 'preact';
import { Confirm } from './confirm.tsx';
import './outside-confirm.css';

interface OutsideConfirmProps {
  title: string;
  yes: string;
  /** The host folders an admin is asked to allow (a `forbidden_path` refusal's `confirm`). */
  paths: string[];
  onYes: () => void;
  onNo: () => void;
  children: ComponentChildren;
}

/** An admin's explicit permission for host folders outside the app, listed one by one (restore, accepting files). */
export function OutsideConfirm({ title, yes, paths, onYes, onNo, children }: OutsideConfirmProps) {
  return (
    <Confirm title={title} yes={yes} danger onYes={onYes} onNo={onNo}>
      {children}
      <ul class="outside-paths">
        {paths.map((p) => (
          <li key={p}>
            <code>{p}</code>
          </li>
        ))}
      </ul>
    </Confirm>
  );
}

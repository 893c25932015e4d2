import { useEffect, useId, useState } from 'preact/hooks';
import type { PathCheckKey, PathCheckT } from '../../shared/settings.ts';
import { t } from '../i18n.ts';
import { PathStatus } from './path-status.tsx';
import { checkPath } from './settings-api.ts';

const DEBOUNCE_MS = 300;

interface Props {
  label: string;
  name: PathCheckKey;
  value: string;
  onInput: (value: string) => void;
  hint?: string | undefined;
  invalid?: boolean | undefined;
  /** The folder this process works in now, shown when the saved one differs (it applies after a restart). */
  inUse?: string | undefined;
  /** An empty value is allowed (the offsite folder is optional). */
  optional?: boolean;
}

/** Asks the server, while typing, whether Kade can use the folder. */
function useLiveCheck(value: string, key: PathCheckKey) {
  const [check, setCheck] = useState<PathCheckT | null>(null);
  const [pending, setPending] = useState(false);
  useEffect(() => {
    const path = value.trim();
    setCheck(null);
    if (path === '') return setPending(false);
    setPending(true);
    let alive = true;
    const timer = setTimeout(() => {
      checkPath(path, key)
        .then((c) => alive && setCheck(c))
        // A failed check says nothing about the folder; the save gives the real answer.
        .catch(() => undefined)
        .finally(() => alive && setPending(false));
    }, DEBOUNCE_MS);
    return () => {
      alive = false;
      clearTimeout(timer);
    };
  }, [value, key]);
  return { check, pending };
}

export function PathField(p: Props) {
  const id = useId();
  const { check, pending } = useLiveCheck(p.value, p.name);
  const described = [`${id}-hint`, `${id}-status`].join(' ');
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type="text"
        value={p.value}
        onInput={(e) => p.onInput(e.currentTarget.value)}
        autocomplete="off"
        autocapitalize="off"
        spellcheck={false}
        required={!p.optional}
        aria-invalid={p.invalid || (check !== null && !check.ok) ? 'true' : undefined}
        aria-describedby={described}
        class="mono"
      />
      <p class="hint" id={`${id}-hint`}>
        {p.hint}
        {p.inUse && p.inUse !== p.value.trim() && <span class="in-use"> {t('paths.in_use', { path: p.inUse })}</span>}
      </p>
      <PathStatus id={`${id}-status`} check={check} pending={pending} />
    </div>
  );
}

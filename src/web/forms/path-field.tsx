import { useEffect, useState } from 'preact/hooks';
import type { PathCheckKey, PathCheckT } from '../../shared/settings.ts';
import { PathStatus } from '../components/path-status.tsx';
import { checkPath } from '../components/settings-api.ts';
import { t } from '../i18n.ts';
import { FieldFrame, type FieldProps } from './field.tsx';

const DEBOUNCE_MS = 300;

interface Props extends FieldProps {
  name: PathCheckKey;
  value: string;
  onInput: (value: string) => void;
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

/** One of Kade's own folders (settings, wizard): checked by the server while typing, with the `.env` line that fixes it. */
export function PathField(p: Props) {
  const { check, pending } = useLiveCheck(p.value, p.name);
  const hint = (
    <>
      {p.hint}
      {p.inUse && p.inUse !== p.value.trim() && <span class="in-use"> {t('paths.in_use', { path: p.inUse })}</span>}
    </>
  );
  return (
    <FieldFrame
      {...p}
      hint={p.hint || (p.inUse && p.inUse !== p.value.trim()) ? hint : undefined}
      required={!p.optional}
      flagged={check !== null && !check.ok}
      describedBy={`${p.name}-status`}
      footer={<PathStatus id={`${p.name}-status`} check={check} pending={pending} />}
    >
      {(a) => (
        <input
          type="text"
          {...a}
          value={p.value}
          onInput={(e) => p.onInput(e.currentTarget.value)}
          autocomplete="off"
          autocapitalize="off"
          spellcheck={false}
          class="mono"
        />
      )}
    </FieldFrame>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../components/error-message.tsx';
import { t } from '../i18n.ts';
import { type A11y, FieldFrame, type FieldProps } from './field.tsx';
import { checkPort, type PortCheckT } from './forms-api.ts';

const CHECK_DELAY_MS = 350;
// The same bounds as shared/host.ts; not imported from there, since that module loads zod.
const MIN_PORT = 1;
const MAX_PORT = 65535;

type Check =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'done'; result: PortCheckT }
  | { kind: 'own'; port: number }
  | { kind: 'unavailable' }
  | { kind: 'failed'; error: unknown };

const asPort = (v: string): number | null => {
  const n = Number(v);
  return /^[0-9]{1,5}$/.test(v.trim()) && n >= MIN_PORT && n <= MAX_PORT ? n : null;
};

/** Checks the port a moment after the last change; a server without the check leaves the form as it is. */
function usePortCheck(value: string): Check {
  const [check, setCheck] = useState<Check>({ kind: 'idle' });
  useEffect(() => {
    const port = asPort(value);
    if (port === null) {
      setCheck({ kind: 'idle' });
      return;
    }
    let live = true;
    setCheck((c) => (c.kind === 'unavailable' ? c : { kind: 'checking' }));
    const timer = setTimeout(() => {
      checkPort(port).then(
        (result) => live && setCheck(result ? { kind: 'done', result } : { kind: 'unavailable' }),
        (error: unknown) => live && setCheck({ kind: 'failed', error }),
      );
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [value]);
  return check;
}

/** A port the host's check found in use by something else, with the next free one when there is one. */
export interface PortTaken {
  port: number;
  next: number | null;
  heldBy: string | null;
}

/** What a check says for a form that stops at a port in use: taken (not by the app itself), or null. */
const takenOf = (check: Check): PortTaken | null =>
  check.kind === 'done' && !check.result.free ? { port: check.result.port, next: check.result.alternative, heldBy: check.result.held_by } : null;

/**
 * A port: a number input with minus and plus, the host's check, and a jump to the next free port.
 * `own` names the containers of the app being reconfigured: a port they hold is free for it.
 */
export function PortInput({
  a11y,
  value,
  onChange,
  label,
  own,
  onCheck,
  said = false,
}: {
  a11y: A11y;
  value: string;
  onChange: (v: string) => void;
  label: string;
  own?: readonly string[] | undefined;
  /** Told whenever the check's answer changes: the port in use, or null. */
  onCheck?: ((taken: PortTaken | null) => void) | undefined;
  /** The field's own message stands under it (the install form's "in use: take the next free port…"): the check then does not say "in use" a second time. */
  said?: boolean | undefined;
}) {
  const check = ownCheck(usePortCheck(value), own);
  const taken = takenOf(check);
  const takenKey = taken ? `${taken.port}/${taken.next}/${taken.heldBy}` : '';
  useEffect(() => onCheck?.(taken), [takenKey]);
  const statusId = `${a11y.id}-check`;
  const port = asPort(value);
  const step = (d: number) => {
    const base = port ?? 8080;
    onChange(String(Math.min(MAX_PORT, Math.max(MIN_PORT, base + d))));
  };
  const describedBy = [a11y['aria-describedby'], statusId].filter(Boolean).join(' ');
  const inUse = check.kind === 'done' && !check.result.free;
  return (
    <>
      <div class="ifield-row port-row">
        <button type="button" class="btn btn-small port-step" aria-label={t('install.port_down', { label })} onClick={() => step(-1)}>
          −
        </button>
        <input
          type="number"
          {...a11y}
          aria-invalid={a11y['aria-invalid'] ?? (inUse ? 'true' : undefined)}
          aria-describedby={describedBy}
          class="port-input"
          inputMode="numeric"
          min={MIN_PORT}
          max={MAX_PORT}
          step={1}
          autocomplete="off"
          value={value}
          onInput={(e) => onChange(e.currentTarget.value)}
        />
        <button type="button" class="btn btn-small port-step" aria-label={t('install.port_up', { label })} onClick={() => step(1)}>
          +
        </button>
        {inUse && check.result.alternative !== null && (
          <button type="button" class="btn btn-small" onClick={() => onChange(String(check.result.alternative))}>
            {t('install.port_next_free', { port: check.result.alternative })}
          </button>
        )}
      </div>
      <p class={`port-check port-${said && inUse ? 'said' : checkClass(check)}`} id={statusId} role="status">
        {said && inUse ? null : checkText(check, value)}
      </p>
    </>
  );
}

/** A port held by the app's own container is reported as such, not as taken. */
function ownCheck(check: Check, own: readonly string[] | undefined): Check {
  if (check.kind !== 'done' || check.result.free || !check.result.held_by || !own?.includes(check.result.held_by)) return check;
  return { kind: 'own', port: check.result.port };
}

function checkClass(check: Check): string {
  if (check.kind !== 'done') return check.kind;
  if (!check.result.free) return 'used';
  return check.result.host_inspected ? 'free' : 'assumed';
}

function checkText(check: Check, value: string): string | null {
  switch (check.kind) {
    case 'idle':
      // A value that is not a port is refused under the field by the shared rules.
      return value.trim() === '' ? null : t('ports.not_checked');
    case 'checking':
      return t('install.port_checking');
    case 'own':
      return t('configure.port_own', { port: check.port });
    case 'unavailable':
      return t('install.port_no_check');
    case 'failed':
      return t('install.port_check_failed', { error: errorText(check.error) });
    case 'done': {
      const r = check.result;
      if (!r.free) return r.held_by ? t('install.port_used_by', { port: r.port, container: r.held_by }) : t('install.port_used', { port: r.port });
      if (!r.host_inspected && r.missing_image) return t('ports.probe_missing', { port: r.port, image: r.missing_image });
      if (!r.host_inspected) return t('install.port_assumed', { port: r.port });
      return t('install.port_free', { port: r.port });
    }
  }
}

/** A labelled port with its live check (install and configure forms). */
export function PortField(
  p: FieldProps & {
    value: string;
    onChange: (v: string) => void;
    own?: readonly string[] | undefined;
    onCheck?: ((taken: PortTaken | null) => void) | undefined;
  },
) {
  return (
    <FieldFrame {...p}>
      {(a) => <PortInput a11y={a} value={p.value} onChange={p.onChange} label={p.label} own={p.own} onCheck={p.onCheck} said={Boolean(p.error)} />}
    </FieldFrame>
  );
}

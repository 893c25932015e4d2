import { useEffect, useId, useState } from 'preact/hooks';
import { t } from '../i18n.ts';
import { errorText } from './error-message.tsx';
import { problemText } from './network-problems.ts';
import { checkAddress, type IpCheckT } from './networks-api.ts';
import './ip-check.css';

const CHECK_DELAY_MS = 300;

export type IpCheckState =
  | { kind: 'idle' }
  | { kind: 'checking'; ip: string }
  | { kind: 'done'; result: IpCheckT }
  | { kind: 'failed'; ip: string; error: unknown };

/** Asks the server about an address on `network` a moment after the last keystroke; idle while the field is empty. */
export function useIpCheck(network: string, value: string): IpCheckState {
  const [check, setCheck] = useState<IpCheckState>({ kind: 'idle' });
  useEffect(() => {
    const ip = value.trim();
    if (ip === '') {
      setCheck({ kind: 'idle' });
      return;
    }
    let live = true;
    setCheck({ kind: 'checking', ip });
    const timer = setTimeout(() => {
      checkAddress(network, ip).then(
        (result) => live && setCheck({ kind: 'done', result }),
        (error: unknown) => live && setCheck({ kind: 'failed', ip, error }),
      );
    }, CHECK_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [network, value]);
  return check;
}

/** Whether the checked address is taken only by one of `own` (the app's own containers): then it is its own address. */
export function isOwnAddress(check: IpCheckState, own: readonly string[]): boolean {
  if (check.kind !== 'done' || check.result.free || check.result.reasons.length === 0) return false;
  return check.result.reasons.every((r) => r.code === 'in_use_engine' && own.includes(String(r.params.container)));
}

/** An address may be used: free, or the app's own. */
export const addressUsable = (check: IpCheckState, own: readonly string[] = []): boolean =>
  (check.kind === 'done' && check.result.free) || isOwnAddress(check, own);

interface Props {
  label: string;
  hint?: string;
  value: string;
  onInput: (value: string) => void;
  check: IpCheckState;
  /** Containers of the app being changed: an address one of them holds is not a conflict. */
  own?: readonly string[];
  name?: string;
}

/** An address field with the server's check under it: free, or why not and a free address nearby to take. */
export function IpAddressField({ label, hint, value, onInput, check, own = [], name = 'ip' }: Props) {
  const id = useId();
  const statusId = `${id}-check`;
  const taken = check.kind === 'done' && !check.result.free && !isOwnAddress(check, own);
  const describedBy = [hint ? `${id}-hint` : '', statusId].filter(Boolean).join(' ');
  return (
    <div class="field ip-field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        name={name}
        class="mono"
        inputMode="decimal"
        autocomplete="off"
        spellcheck={false}
        value={value}
        aria-invalid={taken ? 'true' : undefined}
        aria-describedby={describedBy}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <div class={`ip-check ip-check-${stateClass(check, own)}`} id={statusId} role="status">
        <CheckText check={check} own={own} onTake={onInput} />
      </div>
    </div>
  );
}

function stateClass(check: IpCheckState, own: readonly string[]): string {
  if (check.kind !== 'done') return check.kind;
  if (isOwnAddress(check, own)) return 'free';
  if (!check.result.free) return 'taken';
  return check.result.host_inspected ? 'free' : 'assumed';
}

function CheckText({ check, own, onTake }: { check: IpCheckState; own: readonly string[]; onTake: (ip: string) => void }) {
  switch (check.kind) {
    case 'idle':
      return null;
    case 'checking':
      return <p>{t('ipcheck.checking', { ip: check.ip })}</p>;
    case 'failed':
      return <p>{t('ipcheck.failed', { error: errorText(check.error) })}</p>;
    case 'done':
      break;
  }
  const r = check.result;
  if (isOwnAddress(check, own)) return <p>{t('ipcheck.own', { ip: r.ip })}</p>;
  if (r.free) return <p>{r.host_inspected ? t('ipcheck.free', { ip: r.ip }) : t('ipcheck.free_assumed', { ip: r.ip })}</p>;
  return (
    <>
      <p>{t('ipcheck.taken', { ip: r.ip })}</p>
      <ul class="ip-check-reasons">
        {r.reasons.map((p, i) => (
          <li key={`${p.code}-${i}`}>{problemText(p)}</li>
        ))}
      </ul>
      {r.proposal ? (
        <p class="ip-check-proposal">
          <span>{t('ipcheck.proposal', { ip: r.proposal })}</span>
          <button type="button" class="btn btn-small" onClick={() => r.proposal && onTake(r.proposal)}>
            {t('ipcheck.take', { ip: r.proposal })}
          </button>
        </p>
      ) : (
        r.reasons.some((p) => p.code !== 'invalid_ip' && p.code !== 'no_subnet') && <p>{t('ipcheck.no_proposal')}</p>
      )}
    </>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { AppPowersT, HostPathReviewT } from '../../../shared/powers.ts';
import type { FieldValue } from '../../../shared/template.ts';
import { request } from '../../api.ts';
import { hostPathLine, powerLine } from '../../components/power-text.ts';
import { CheckboxField } from '../../forms/field.tsx';
import { t } from '../../i18n.ts';
import type { InstallChecks } from './install-checks.tsx';
import './powers-review.css';

const seg = encodeURIComponent;
type Refused = HostPathReviewT['refused'][number];

export interface PowersReview {
  /** The compose policy's answer; null while it is asked (or off the review step). */
  answer: AppPowersT | null;
  /** Host paths the template itself binds outside the app's folders, beyond those the powers name (the socket, a device). */
  paths: Refused[];
  /** Whether there is any power to show. */
  any: boolean;
  /** Only an admin can install the app: this user is told so and cannot install. */
  needsAdmin: boolean;
  confirmed: boolean;
  setConfirmed: (on: boolean) => void;
  /** What keeps the install from going ahead: an admin needed, or the powers not confirmed yet. */
  blocked: boolean;
}

/** The compose policy's powers of the app with these values (POST …/powers), asked while `active` (the review step). */
function useAppPowers(repo: string, app: string, values: Record<string, FieldValue>, active: boolean): AppPowersT | null {
  const [answer, setAnswer] = useState<AppPowersT | null>(null);
  const key = JSON.stringify(values);
  useEffect(() => {
    if (!active) return;
    let live = true;
    setAnswer(null);
    // A refusal (a value the server rejects) is shown by the install itself; the review then shows no powers.
    request<AppPowersT>('POST', `/api/store/apps/${seg(repo)}/${seg(app)}/powers`, { values })
      .then((a) => live && setAnswer(a))
      .catch(() => live && setAnswer({ powers: [], allowed: true }));
    return () => {
      live = false;
    };
  }, [repo, app, key, active]);
  return active ? answer : null;
}

/**
 * The powers over the host an install hands the app, as the review names them: the compose policy's (the engine
 * socket, privileged, the host's namespaces, capabilities, devices) and the host paths the template itself binds
 * outside the app's folders (the host-path review's, which only an admin may allow). A user who may install them
 * confirms them first: that confirmation allows those host paths for this install (confirm_outside_paths, audited).
 */
export function usePowersReview(repo: string, app: string, values: Record<string, FieldValue>, checks: InstallChecks, active: boolean): PowersReview {
  const answer = useAppPowers(repo, app, values, active);
  const [confirmedKey, setConfirmedKey] = useState<string | null>(null);
  const review = checks.review;
  const outside = (review?.refused ?? []).filter((r) => r.field === null && r.reason === 'not_allowed');
  const named = new Set((answer?.powers ?? []).map((p) => p.value));
  const paths = outside.filter((r) => !named.has(r.path));
  const any = (answer?.powers.length ?? 0) > 0 || outside.length > 0;
  const needsAdmin = answer !== null && (!answer.allowed || (outside.length > 0 && review?.may_confirm === false));
  const key = JSON.stringify([answer?.powers ?? null, outside.map((r) => r.path)]);
  const confirmed = confirmedKey === key;
  const setConfirmed = (on: boolean) => {
    for (const r of outside) checks.allow(r.path, on);
    setConfirmedKey(on ? key : null);
  };
  return { answer, paths, any, needsAdmin, confirmed, setConfirmed, blocked: active && any && (answer === null || needsAdmin || !confirmed) };
}

/** The review's box of powers: each one named, then who may install them, or the confirmation. Nothing when none. */
export function PowersBox({ powers, messageId }: { powers: PowersReview; messageId: string }) {
  const { answer } = powers;
  if (!answer) return <p class="muted powers-checking">{t('powers.checking')}</p>;
  if (!powers.any) return null;
  const gatedRefused = !answer.allowed;
  return (
    <div class="powers-warning" role="alert" aria-labelledby="powers-title">
      <h3 id="powers-title">{t('powers.title')}</h3>
      <p>{t('powers.intro')}</p>
      <ul>
        {answer.powers.map((p) => (
          <li key={`${p.service} ${p.power} ${p.value}`}>{powerLine(p)}</li>
        ))}
        {powers.paths.map((r) => (
          <li key={r.path}>{hostPathLine(r.path, r.read_only)}</li>
        ))}
      </ul>
      {powers.needsAdmin ? (
        <p class="powers-admin" id={messageId}>
          {t(gatedRefused ? 'powers.admin_only' : 'powers.admin_only_paths')}
        </p>
      ) : (
        <>
          <CheckboxField
            class="powers-confirm"
            name="powers-confirm"
            label={t('powers.confirm')}
            hint={t('powers.confirm_hint')}
            checked={powers.confirmed}
            onChange={powers.setConfirmed}
          />
          {!powers.confirmed && (
            <p class="powers-admin" id={messageId}>
              {t('powers.confirm_needed')}
            </p>
          )}
        </>
      )}
    </div>
  );
}

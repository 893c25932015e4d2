import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { HostPathReviewT } from '../../../shared/powers.ts';
import type { FieldValue, TemplateFieldT } from '../../../shared/template.ts';
import { CheckboxField } from '../../forms/field.tsx';
import type { PortTaken } from '../../forms/port-field.tsx';
import { t } from '../../i18n.ts';
import { reviewHostPaths } from './install-api.ts';

const REVIEW_DELAY_MS = 400;
type Refused = HostPathReviewT['refused'][number];

/** The host folders of the form that the bind policy refuses for this name, asked a moment after the last change. */
function useHostPaths(repo: string, app: string, name: string, values: Record<string, FieldValue>): HostPathReviewT | null {
  const [review, setReview] = useState<HostPathReviewT | null>(null);
  const key = JSON.stringify([name, values]);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      reviewHostPaths(repo, app, name, values).then(
        (r) => live && setReview(r),
        // The install judges again and says it then; a failed look leaves the form as it is.
        () => live && setReview(null),
      );
    }, REVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [repo, app, key]);
  return review;
}

/** Why a host folder cannot be this app's, in the user's language. */
export function refusedPathText(r: Refused, own: string): string {
  return r.reason === 'other_app'
    ? t('configure.forbidden.other_app', { path: r.path, own, app: r.app ?? '' })
    : t('configure.forbidden.not_allowed', { path: r.path, own });
}

/** The one message of a port in use under its field (the port's own check then keeps quiet): who holds it when known, and the next free port. */
function portTakenText({ port, next, heldBy }: PortTaken): string {
  if (!heldBy) return next !== null ? t('install.port_taken_next', { port, next }) : t('install.port_taken', { port });
  const container = heldBy;
  return next !== null ? t('install.port_taken_by_next', { port, next, container }) : t('install.port_taken_by', { port, container });
}

export interface InstallChecks {
  /** What is wrong with a field beyond its rules, shown while typing (a host folder the app may not use). */
  live: (fid: string) => string | null;
  /** What stops the user at a field on Next or Install (also a port in use that was not confirmed). */
  blocking: (fid: string) => string | null;
  /** The confirmation a field asks for under it (a port in use, a host folder an admin may allow). */
  footer: (f: TemplateFieldT) => ComponentChildren;
  /** Told by a port field what its check found. */
  onPortCheck: (fid: string) => (taken: PortTaken | null) => void;
  /** The outside folders an admin allowed, for `confirm_outside_paths`. */
  confirmed: () => string[];
  /** Host folders the template itself names (no field) that are refused: the review step lists them. */
  unplaced: Refused[];
  /** The review's word for this name, to show the refusals of unplaced folders and their confirmation. */
  review: HostPathReviewT | null;
  allow: (path: string, on: boolean) => void;
  isAllowed: (path: string) => boolean;
}

/**
 * The install form's checks that need the host: a port in use blocks the install (with the next free port offered)
 * unless the user confirms it; a host folder outside the app is refused while typing, and an admin may allow it
 * for this install (sent as confirm_outside_paths, audited by the server).
 */
export function useInstallChecks(repo: string, app: string, name: string, values: Record<string, FieldValue>): InstallChecks {
  const [ports, setPorts] = useState<Record<string, PortTaken>>({});
  const [portsOk, setPortsOk] = useState<Record<string, number>>({});
  const [allowed, setAllowed] = useState<ReadonlySet<string>>(new Set());
  // Every value: the template may build a folder from any of them, as the install renders it.
  const review = useHostPaths(repo, app, name, values);
  const refusedAt = (fid: string): Refused | undefined => review?.refused.find((r) => r.field === fid);
  const isAllowed = (path: string) => allowed.has(path);
  const allow = (path: string, on: boolean) =>
    setAllowed((old) => {
      const next = new Set(old);
      if (on) next.add(path);
      else next.delete(path);
      return next;
    });

  const live = (fid: string): string | null => {
    const r = refusedAt(fid);
    return r && review && !(r.reason === 'not_allowed' && review.may_confirm && allowed.has(r.path)) ? refusedPathText(r, review.own) : null;
  };
  const portBlock = (fid: string): string | null => {
    const taken = ports[fid];
    if (!taken || portsOk[fid] === taken.port) return null;
    return portTakenText(taken);
  };
  const footer = (f: TemplateFieldT) => {
    const taken = ports[f.id];
    if (f.type === 'port' && taken) {
      return (
        <CheckboxField
          class="install-confirm"
          name={`${f.id}-anyway`}
          label={t('install.port_anyway', { port: taken.port })}
          checked={portsOk[f.id] === taken.port}
          onChange={(on) => setPortsOk((old) => ({ ...old, [f.id]: on ? taken.port : -1 }))}
        />
      );
    }
    const r = refusedAt(f.id);
    if (r && review?.may_confirm && r.reason === 'not_allowed') {
      return (
        <CheckboxField
          class="install-confirm"
          name={`${f.id}-allow`}
          label={t('install.outside_allow', { path: r.path })}
          hint={t('install.outside_allow_hint')}
          checked={allowed.has(r.path)}
          onChange={(on) => allow(r.path, on)}
        />
      );
    }
    return null;
  };
  return {
    live,
    blocking: (fid) => live(fid) ?? portBlock(fid),
    footer,
    onPortCheck: (fid) => (taken) =>
      setPorts((old) => {
        const { [fid]: _gone, ...rest } = old;
        return taken ? { ...rest, [fid]: taken } : rest;
      }),
    confirmed: () => (review?.refused ?? []).filter((r) => r.reason === 'not_allowed' && allowed.has(r.path)).map((r) => r.path),
    unplaced: (review?.refused ?? []).filter((r) => r.field === null),
    review,
    allow,
    isAllowed,
  };
}

/**
 * Folders the template itself names (no field to mark) in another app's data: said on the review, never allowed. Those
 * outside the allowed places are powers over the host: the review's powers box names them, with the admin's choice.
 */
export function UnplacedFolders({ checks }: { checks: InstallChecks }) {
  const { review } = checks;
  const unplaced = checks.unplaced.filter((r) => r.reason === 'other_app');
  if (!review || unplaced.length === 0) return null;
  return (
    <div class="error install-unplaced" role="alert">
      <div class="error-body">
        {unplaced.map((r) => (
          <div key={r.path}>
            <p>{refusedPathText(r, review.own)}</p>
            {review.may_confirm && r.reason === 'not_allowed' && (
              <CheckboxField
                class="install-confirm"
                name={`allow-${r.path}`}
                label={t('install.outside_allow', { path: r.path })}
                checked={checks.isAllowed(r.path)}
                onChange={(on) => checks.allow(r.path, on)}
              />
            )}
          </div>
        ))}
      </div>
    </div>
  );
}

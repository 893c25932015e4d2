import { useEffect, useState } from 'preact/hooks';
import { errorText } from '../../components/error-message.tsx';
import { problemText } from '../../components/network-problems.ts';
import { t } from '../../i18n.ts';
import { type NetworkPlan, type NetworkReviewT, reviewNetwork } from './networks-api.ts';

const REVIEW_DELAY_MS = 300;

export type ReviewState =
  | { kind: 'idle' }
  /** `last` is the previous answer, kept on screen while the new one is asked, so the panel does not flicker. */
  | { kind: 'checking'; last: NetworkReviewT | null }
  | { kind: 'done'; result: NetworkReviewT }
  | { kind: 'failed'; error: unknown };

const blank = (p: NetworkPlan) => Object.values(p).every((v) => v.trim() === '');

/** Asks the server to review the plan a moment after the last keystroke; idle while every field is empty. */
export function useReview(plan: NetworkPlan): ReviewState {
  const [state, setState] = useState<ReviewState>({ kind: 'idle' });
  const { subnet, gateway, range, interface: iface } = plan;
  useEffect(() => {
    const p = { subnet, gateway, range, interface: iface };
    if (blank(p)) {
      setState({ kind: 'idle' });
      return;
    }
    let live = true;
    setState((s) => ({ kind: 'checking', last: s.kind === 'done' ? s.result : s.kind === 'checking' ? s.last : null }));
    const timer = setTimeout(() => {
      reviewNetwork(p).then(
        (result) => live && setState({ kind: 'done', result }),
        (error: unknown) => live && setState({ kind: 'failed', error }),
      );
    }, REVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [subnet, gateway, range, iface]);
  return state;
}

/** The answer on screen: the last one while a new one is asked. */
export const shownReview = (s: ReviewState): NetworkReviewT | null => (s.kind === 'done' ? s.result : s.kind === 'checking' ? s.last : null);

/** The review under the fields: usable addresses, then what blocks the network and what is good to know. */
export function ReviewPanel({ state, id }: { state: ReviewState; id: string }) {
  const r = shownReview(state);
  return (
    <div class="net-review" id={id} role="status" aria-busy={state.kind === 'checking'}>
      {state.kind === 'idle' && <p class="muted">{t('networks.review_idle')}</p>}
      {state.kind === 'failed' && <p class="net-review-failed">{t('networks.review_failed', { error: errorText(state.error) })}</p>}
      {state.kind === 'checking' && r === null && <p class="muted">{t('networks.review_checking')}</p>}
      {r && (
        <>
          <p class="net-review-usable">
            {r.usable > 0 && r.first && r.last
              ? t('networks.review_usable', { count: r.usable, first: r.first, last: r.last })
              : r.errors.length === 0
                ? t('networks.review_none')
                : null}
          </p>
          {r.errors.length > 0 && (
            <div class="net-review-errors">
              <p>{t('networks.review_errors')}</p>
              <ul>
                {r.errors.map((p, i) => (
                  <li key={`${p.code}-${i}`}>{problemText(p)}</li>
                ))}
              </ul>
            </div>
          )}
          {r.warnings.length > 0 && (
            <div class="net-review-warnings">
              <p>{t('networks.review_warnings')}</p>
              <ul>
                {r.warnings.map((p, i) => (
                  <li key={`${p.code}-${i}`}>{problemText(p)}</li>
                ))}
              </ul>
            </div>
          )}
        </>
      )}
    </div>
  );
}

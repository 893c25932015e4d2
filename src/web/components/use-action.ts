import { useRef, useState } from 'preact/hooks';

/** An action a form or a button starts: whether it runs, how the last run failed, what the last success gave. */
export interface Action<A extends unknown[], R> {
  busy: boolean;
  /** The last run's failure (an ApiError, mostly), until the next run or `reset`. */
  error: unknown;
  /** The last success's answer, until the next run or `reset`. */
  result: R | undefined;
  /**
   * Runs the work unless a run is under way (a second click or Enter while busy does nothing). Never throws:
   * a failure lands in `error` and the answer is undefined.
   */
  run: (...args: A) => Promise<R | undefined>;
  /** Shows a failure found before the work started, or takes one away (null). */
  setError: (e: unknown) => void;
  /** Forgets the last failure and answer. */
  reset: () => void;
}

/**
 * The busy/error/result state of one action, the same for every form: `work` runs with the arguments of
 * `run`; what it returns is `result`, what it throws is `error`. The latest `work` is used, so it may read
 * the form's current values.
 */
export function useAction<A extends unknown[], R>(work: (...args: A) => Promise<R>): Action<A, R> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<R | undefined>(undefined);
  const running = useRef(false);
  const latest = useRef(work);
  latest.current = work;

  const run = async (...args: A): Promise<R | undefined> => {
    // A ref, not the state: two clicks in one tick both see busy false.
    if (running.current) return undefined;
    running.current = true;
    setBusy(true);
    setError(null);
    setResult(undefined);
    try {
      const answer = await latest.current(...args);
      setResult(answer);
      return answer;
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      running.current = false;
      setBusy(false);
    }
  };
  const reset = () => {
    setError(null);
    setResult(undefined);
  };
  return { busy, error, result, run, setError, reset };
}

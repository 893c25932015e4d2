import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { TemplateFileT } from '../../../shared/template.ts';
import { buildSteps, type Step } from '../../forms/install-model.ts';
import { stepKey } from './step-title.ts';

/** Focuses the first field marked invalid, once the marks are drawn. */
export const focusFirstInvalid = () => {
  setTimeout(() => (document.querySelector('.install-form [aria-invalid="true"]') as HTMLElement | null)?.focus(), 0);
};

/** The install form's steps (more with the advanced switch on), the current one, and where the focus goes on a move. */
export function useStepper(template: TemplateFileT) {
  const [advanced, setAdvanced] = useState(false);
  const [current, setCurrent] = useState('main');
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  const steps = useMemo(() => buildSteps(template, advanced), [template, advanced]);
  const index = Math.max(
    0,
    steps.findIndex((s) => stepKey(s) === current),
  );
  const step = steps[index] ?? steps[0];

  // The heading of a new step takes the focus, so a keyboard or screen-reader user starts at its top.
  // After a jump to a refused field, that field takes it instead.
  const toInvalid = useRef(false);
  useEffect(() => {
    if (toInvalid.current) focusFirstInvalid();
    else if (moved.current) heading.current?.focus();
    toInvalid.current = false;
    moved.current = true;
  }, [current]);

  const jumpTo = (key: string) => {
    toInvalid.current = true;
    setCurrent(key);
  };
  /** Shows a refused field: its step when that is another, else the field takes the focus. */
  const showInvalid = (target: Step | undefined) => {
    if (target && stepKey(target) !== current) jumpTo(stepKey(target));
    else focusFirstInvalid();
  };
  return { advanced, setAdvanced, current, setCurrent, heading, steps, index, step, jumpTo, showInvalid };
}

import { MIN_PASSWORD_LENGTH } from '../../shared/passwords.ts';
import { Field } from './field.tsx';

/** What the interface can tell about a new password before asking the server. */
export type PasswordProblem = 'too_short' | 'mismatch';

/**
 * The server enforces the same minimum (one shared constant); checking here saves a round trip and explains it up front.
 * Without `repeat` only the length is checked. Length goes first: a short password is wrong whatever the repeat says.
 */
export function passwordProblem(password: string, repeat: string = password): PasswordProblem | null {
  if (password.length < MIN_PASSWORD_LENGTH) return 'too_short';
  return password !== repeat ? 'mismatch' : null;
}

interface PasswordFieldProps {
  label: string;
  /** The form field name the server answers about (`password`, `current_password`, `new_password`). */
  name: string;
  value: string;
  onInput: (value: string) => void;
  invalid: boolean;
  errorId: string;
}

interface NewPasswordFieldProps extends PasswordFieldProps {
  hint: string;
}

/** A password the user already has: the browser may fill in the saved one. */
export function CurrentPasswordField(p: PasswordFieldProps) {
  return <Field {...p} type="password" autocomplete="current-password" />;
}

/** A password being chosen: the browser may offer to generate one and should not fill in a saved one. */
export function NewPasswordField(p: NewPasswordFieldProps) {
  return <Field {...p} type="password" autocomplete="new-password" />;
}

interface NewPasswordFieldsProps extends Omit<NewPasswordFieldProps, 'invalid'> {
  repeatLabel: string;
  repeat: string;
  onRepeat: (value: string) => void;
  /** The result of `passwordProblem`, marking the field it is about. */
  problem: PasswordProblem | null;
  /** The server named the new password as offending. */
  serverInvalid: boolean;
}

/** A new password typed twice, since nobody sees what was typed. */
export function NewPasswordFields(p: NewPasswordFieldsProps) {
  return (
    <>
      <NewPasswordField
        label={p.label}
        name={p.name}
        value={p.value}
        onInput={p.onInput}
        hint={p.hint}
        invalid={p.problem === 'too_short' || p.serverInvalid}
        errorId={p.errorId}
      />
      <Field
        label={p.repeatLabel}
        name="repeat"
        type="password"
        value={p.repeat}
        onInput={p.onRepeat}
        autocomplete="new-password"
        invalid={p.problem === 'mismatch'}
        errorId={p.errorId}
      />
    </>
  );
}

import { MIN_PASSWORD_LENGTH } from '../../shared/passwords.ts';
import { t } from '../i18n.ts';
import { TextField } from './field.tsx';

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

/** The sentences under the two fields of a new password, once the user tried to go on (`shown`); kept up to date while typing. */
export function passwordMessages(
  password: string,
  repeat: string,
  shown: boolean,
  mismatch: 'account.mismatch' | 'setup.mismatch' = 'account.mismatch',
): { password: string | null; repeat: string | null } {
  const problem = shown ? passwordProblem(password, repeat) : null;
  return {
    password: problem === 'too_short' ? t('users.too_short', { min: MIN_PASSWORD_LENGTH }) : null,
    repeat: problem === 'mismatch' ? t(mismatch) : null,
  };
}

interface PasswordFieldProps {
  label: string;
  /** The form field name the server answers about (`password`, `current_password`, `new_password`). */
  name: string;
  value: string;
  onInput: (value: string) => void;
  error?: string | null | undefined;
  /** Marked with the reason in the form's box (a login refused as a whole). */
  invalid?: boolean | undefined;
  errorId?: string | undefined;
}

/** A password the user already has: the browser may fill in the saved one. */
export function CurrentPasswordField(p: PasswordFieldProps) {
  return <TextField {...p} type="password" autocomplete="current-password" required />;
}

/** A password being chosen: the browser may offer to generate one and should not fill in a saved one. */
export function NewPasswordField(p: PasswordFieldProps & { hint: string }) {
  return <TextField {...p} type="password" autocomplete="new-password" required />;
}

interface NewPasswordFieldsProps {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  hint: string;
  repeatLabel: string;
  repeat: string;
  onRepeat: (value: string) => void;
  /** What is wrong, per field (`passwordMessages`, or the server's word on the new password). */
  errors: { password: string | null; repeat: string | null };
}

/** A new password typed twice, since nobody sees what was typed. */
export function NewPasswordFields(p: NewPasswordFieldsProps) {
  return (
    <>
      <NewPasswordField label={p.label} name={p.name} value={p.value} onInput={p.onInput} hint={p.hint} error={p.errors.password} />
      <TextField
        label={p.repeatLabel}
        name="repeat"
        type="password"
        value={p.repeat}
        onInput={p.onRepeat}
        autocomplete="new-password"
        required
        error={p.errors.repeat}
      />
    </>
  );
}

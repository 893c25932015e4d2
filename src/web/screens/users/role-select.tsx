import { ROLES, type Role } from '../../../shared/roles.ts';
import { roleName } from '../../components/role-name.ts';

interface Props {
  id: string;
  /** A fuller accessible name than the visible label, e.g. naming the account. */
  label?: string;
  value: Role;
  onChange: (role: Role) => void;
  disabled?: boolean;
}

/** The three roles, most powerful last, as the spec orders them. */
export function RoleSelect({ id, label, value, onChange, disabled }: Props) {
  return (
    <select id={id} aria-label={label} value={value} disabled={disabled} onChange={(e) => onChange(e.currentTarget.value as Role)}>
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {roleName(r)}
        </option>
      ))}
    </select>
  );
}

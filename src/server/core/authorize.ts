import { type Role, roleAllows } from '../../shared/roles.ts';
import { AppError } from './errors.ts';
import type { Actor } from './events.ts';

/** The services' own permission check (HTTP checks too, but jobs and the CLI come through here). */
export function requireRole(actor: Actor, role: Role, what: string): void {
  if (!roleAllows(actor.role, role)) throw new AppError('forbidden', `${what} needs the role ${role}`, { params: { role } });
}

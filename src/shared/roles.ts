export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** What a route needs: a role, any logged-in user, or nobody. */
export type Access = Role | 'public';

/** Roles are ordered: an admin may do what an operator may, an operator what a viewer may. */
export function roleAllows(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

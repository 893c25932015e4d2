import { joinPath } from '../../../shared/paths.ts';
import type { StorePowerT } from '../../../shared/powers.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { Actor } from '../../core/events.ts';
import type { BindRules } from '../../settings/bind-rules.ts';
import { judgeDevice, judgePath } from './bind-policy.ts';
import type { PrivilegedPolicy } from './compose-policy.ts';

/** A name no app has: the store's look judges the app's host paths as nobody's. */
const NOBODY = '-';

/**
 * Whether only an admin can install an app of the store with the powers its form starts with (templates/app-powers.ts),
 * by the same rules the install applies: the engine socket always (no role but an admin may confirm it), the other
 * powers but devices while ALLOW_PRIVILEGED_APPS is `admins`, and a host path or device the bind policy refuses (only
 * an admin may confirm one). The store shows it as "needs an admin"; the install judges the values it is given.
 */
export function createStoreJudgement(d: { binds: BindRules; allowPrivileged: () => PrivilegedPolicy }) {
  return function needsAdmin(actor: Actor, powers: readonly StorePowerT[]): boolean {
    if (powers.length === 0 || roleAllows(actor.role, 'admin')) return false;
    const scope = { app: NOBODY, stackDir: joinPath(d.binds.libraryDir, NOBODY) };
    const allow = d.allowPrivileged();
    return powers.some((p) => {
      if (p.power === 'engine_socket') return true;
      if (p.power === 'host_path') return !judgePath(p.value, scope, d.binds).ok;
      if (p.power === 'devices') return !judgeDevice(p.value, scope, d.binds).ok;
      return allow !== 'everyone';
    });
  };
}

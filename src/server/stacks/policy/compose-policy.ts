import type { PowerUseT } from '../../../shared/powers.ts';
import { roleAllows } from '../../../shared/roles.ts';
import type { ALLOW_PRIVILEGED_VALUES } from '../../../shared/settings-keys.ts';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { composePowers, describePowers, gatedPowers, powerKey } from '../../templates/compose-powers.ts';
import { parseEnv } from '../store/env-file.ts';

/**
 * Who may use the powers over the host a compose file hands an app (templates/compose-powers.ts reads them). Every
 * entry point (install, reconfigure, the compose editor, a snapshot restore, adopt, the gate) judges through here.
 */
export type PowerUse = PowerUseT;

export type PrivilegedPolicy = (typeof ALLOW_PRIVILEGED_VALUES)[number];

/**
 * `.env` keys compose reads as its own settings (COMPOSE_FILE, COMPOSE_PROJECT_NAME, DOCKER_HOST, …): an app's `.env`
 * that sets one makes compose run other files, another project or another engine than the ones Kade judged.
 */
export function enforceEnvKeys(env: Record<string, string>): void {
  const key = Object.keys(env).find((k) => /^(COMPOSE_|DOCKER_)/i.test(k));
  if (key) {
    throw new AppError(
      'compose_refused',
      `.env sets '${key}': names starting with COMPOSE_ or DOCKER_ change how compose itself runs and are set by Kade only`,
      {
        params: { reason: 'env_key', where: '.env', key },
        fields: ['content'],
      },
    );
  }
}

/** Whether the actor may take an app with these powers under the current ALLOW_PRIVILEGED_APPS. */
export const mayUsePowers = (actor: Actor, uses: PowerUse[], allow: PrivilegedPolicy): boolean =>
  gatedPowers(uses).length === 0 || allow === 'everyone' || roleAllows(actor.role, 'admin');

/**
 * The policy at every entry point: refuses YAML hazards and ownership labels for everyone, and an app with powers
 * over the host for a non-admin unless ALLOW_PRIVILEGED_APPS is `everyone`. `env` (or the `.env` text) is what compose
 * interpolates with. Answers the powers (for the job log).
 */
export function enforceComposePolicy(
  actor: Actor,
  composeText: string,
  opts: {
    env?: Record<string, string>;
    envText?: string;
    allow: PrivilegedPolicy;
    /** The environment compose runs with: it wins over `.env` in interpolation, as in compose. */
    shell?: Readonly<Record<string, string>>;
    /** The engine socket Kade talks to, beside the default places: a bind of it is the engine socket power. */
    socket?: string | null;
    /** What the writer of the app's files was allowed (file-seal.ts): powers an admin set up stay usable by operators. */
    approved?: { powers: readonly string[]; role: Actor['role'] };
  },
): PowerUse[] {
  const dotenv = opts.env ?? parseEnv(opts.envText ?? '');
  enforceEnvKeys(dotenv);
  const uses = composePowers(composeText, { ...dotenv, ...opts.shell }, opts.socket ? [opts.socket] : undefined);
  const gated = gatedPowers(uses);
  const approved = opts.approved;
  const setUp = approved?.role === 'admin' && gated.every((u) => approved.powers.includes(powerKey(u)));
  if (!setUp && !mayUsePowers(actor, uses, opts.allow)) {
    const powers = describePowers(gated);
    throw new AppError(
      'app_powers_refused',
      `this app asks for powers over the host (${powers}); only an admin may install or change such an app (setting ALLOW_PRIVILEGED_APPS)`,
      { params: { powers, services: [...new Set(gated.map((u) => u.service))].join(', '), setting: 'ALLOW_PRIVILEGED_APPS' } },
    );
  }
  return uses;
}

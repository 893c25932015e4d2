import { errorMessage } from '../core/errors.ts';
import type { Compose, ComposeVariant } from './compose.ts';
import type { Engine } from './engine.ts';

/** Whether the engine answers, its version, and the compose variant found (GET /api/engine/check). */
export interface EngineCheckResult {
  reachable: boolean;
  version: string | null;
  api_version: string | null;
  compose: ComposeVariant | null;
  /** Why the engine (else compose) could not be used; null when both answer. */
  error: string | null;
}

export interface EngineCheck {
  check(): Promise<EngineCheckResult>;
}

export function createEngineCheck(d: { engine: Pick<Engine, 'ping'>; compose: Pick<Compose, 'variant'> }): EngineCheck {
  return {
    async check() {
      const [info, compose] = await Promise.allSettled([d.engine.ping(), d.compose.variant()]);
      return {
        reachable: info.status === 'fulfilled',
        version: info.status === 'fulfilled' ? info.value.version : null,
        api_version: info.status === 'fulfilled' ? info.value.apiVersion : null,
        compose: compose.status === 'fulfilled' ? compose.value : null,
        error: info.status === 'rejected' ? errorMessage(info.reason) : compose.status === 'rejected' ? errorMessage(compose.reason) : null,
      };
    },
  };
}

import { readFileSync, statSync } from 'node:fs';
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
  /** The group that owns the engine's socket and whether Kade's process is in it; null for an engine over tcp. */
  socket_group: SocketGroup | null;
}

export interface SocketGroup {
  socket: string;
  /** The socket's group id; null when the socket cannot be looked at (`error` says why). */
  gid: number | null;
  /** Its name in the group file; null when the file does not name it (a container's /etc/group rarely does). */
  name: string | null;
  /** Whether Kade's process has that group (its own or a supplementary one): the socket's mode lets the group in. */
  member: boolean;
  error: string | null;
}

/** The socket's group, read from the socket itself (as the container's entrypoint does) and named by `groupFile`. */
export function socketGroup(socket: string, groupFile = '/etc/group'): SocketGroup {
  let gid: number;
  try {
    gid = statSync(socket).gid;
  } catch (err) {
    return { socket, gid: null, name: null, member: false, error: errorMessage(err) };
  }
  let name: string | null = null;
  try {
    for (const line of readFileSync(groupFile, 'utf8').split('\n')) {
      const [n, , id] = line.split(':');
      if (n && id !== undefined && Number(id) === gid) {
        name = n;
        break;
      }
    }
  } catch {
    // No group file: the id alone.
  }
  const groups = [process.getegid?.(), ...(process.getgroups?.() ?? [])];
  return { socket, gid, name, member: groups.includes(gid), error: null };
}

export interface EngineCheck {
  check(): Promise<EngineCheckResult>;
}

export function createEngineCheck(d: {
  engine: Pick<Engine, 'ping'>;
  compose: Pick<Compose, 'variant'>;
  /** The engine's unix socket; absent for an engine over tcp. */
  socketPath?: string | null;
  groupFile?: string;
}): EngineCheck {
  return {
    async check() {
      const [info, compose] = await Promise.allSettled([d.engine.ping(), d.compose.variant()]);
      return {
        reachable: info.status === 'fulfilled',
        version: info.status === 'fulfilled' ? info.value.version : null,
        api_version: info.status === 'fulfilled' ? info.value.apiVersion : null,
        compose: compose.status === 'fulfilled' ? compose.value : null,
        error: info.status === 'rejected' ? errorMessage(info.reason) : compose.status === 'rejected' ? errorMessage(compose.reason) : null,
        socket_group: d.socketPath ? socketGroup(d.socketPath, d.groupFile) : null,
      };
    },
  };
}

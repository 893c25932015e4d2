import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

const FULL_ID = /\b([0-9a-f]{64})\b/;
// The engine's layout for a container's own files (hostname, resolv.conf), as seen in mountinfo.
const MOUNT_ID = /\/containers\/([0-9a-f]{64})\//;
const SHORT_ID = /^[0-9a-f]{12,64}$/;

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // Not on Linux, or /proc hidden: Kade then simply does not know its own container.
    return '';
  }
}

export interface OwnContainerSources {
  cgroup: string;
  mountinfo: string;
  hostname: string;
}

/**
 * Kade's own container id (or an id prefix) from what the process can see of itself: a 64-hex id
 * in /proc/self/cgroup (cgroup v1, systemd scopes) or /proc/self/mountinfo (cgroup v2), else the
 * host name, which the engine sets to the short id unless told otherwise. Null outside a container.
 */
export function ownContainerIdFrom(src: OwnContainerSources): string | null {
  const fromCgroup = FULL_ID.exec(src.cgroup)?.[1];
  if (fromCgroup) return fromCgroup;
  const fromMount = MOUNT_ID.exec(src.mountinfo)?.[1];
  if (fromMount) return fromMount;
  const host = src.hostname.trim().toLowerCase();
  return SHORT_ID.test(host) ? host : null;
}

/** Reads the sources once at start; see ownContainerIdFrom. */
export function detectOwnContainerId(): string | null {
  return ownContainerIdFrom({ cgroup: readOrEmpty('/proc/self/cgroup'), mountinfo: readOrEmpty('/proc/self/mountinfo'), hostname: hostname() });
}

/** Whether a container id is the own one: the detected value may be the full id or its prefix. */
export function isOwnId(ownId: string | null, containerId: string): boolean {
  return ownId !== null && ownId.length >= 12 && containerId.startsWith(ownId);
}

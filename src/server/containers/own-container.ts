import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';

const FULL_ID = /\b([0-9a-f]{64})\b/;
// The engine's layout for a container's own files, as seen in mountinfo: the line that mounts one of them on
// /etc/hostname, /etc/hosts or /etc/resolv.conf. Any other line naming a container folder (a host's mountinfo
// lists other containers' shm mounts) is not this process's container.
const MOUNT_ID = /^\S+ \S+ \S+ \S*\/containers\/([0-9a-f]{64})\/\S+ \/etc\/(?:hostname|hosts|resolv\.conf) /m;
// What Docker (/.dockerenv) and Podman (/run/.containerenv) leave in every container's root.
const CONTAINER_MARKERS = ['/.dockerenv', '/run/.containerenv'];
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
  /** Whether the root holds a container runtime's marker file: without one, only the cgroup is believed. */
  inContainer: boolean;
  mountinfo: string;
  hostname: string;
}

/**
 * Kade's own container id (or an id prefix) from what the process can see of itself: a 64-hex id
 * in /proc/self/cgroup (cgroup v1, systemd scopes) or, in a container, /proc/self/mountinfo (cgroup v2), else
 * the host name, which the engine sets to the short id unless told otherwise. Null outside a container: a host
 * whose name happens to be hex is not a container.
 */
export function ownContainerIdFrom(src: OwnContainerSources): string | null {
  const fromCgroup = FULL_ID.exec(src.cgroup)?.[1];
  if (fromCgroup) return fromCgroup;
  if (!src.inContainer) return null;
  const fromMount = MOUNT_ID.exec(src.mountinfo)?.[1];
  if (fromMount) return fromMount;
  const host = src.hostname.trim().toLowerCase();
  return SHORT_ID.test(host) ? host : null;
}

/**
 * Reads the sources once at start; see ownContainerIdFrom. mountinfo is read in a container only: on a host with
 * hundreds of containers it is some 300 KB, most of the time a start spent here.
 */
export function detectOwnContainerId(): string | null {
  const inContainer = CONTAINER_MARKERS.some((f) => existsSync(f));
  const cgroup = readOrEmpty('/proc/self/cgroup');
  return ownContainerIdFrom({ cgroup, inContainer, mountinfo: inContainer ? readOrEmpty('/proc/self/mountinfo') : '', hostname: hostname() });
}

/** Whether a container id is the own one: the detected value may be the full id or its prefix. */
export function isOwnId(ownId: string | null, containerId: string): boolean {
  return ownId !== null && ownId.length >= 12 && containerId.startsWith(ownId);
}

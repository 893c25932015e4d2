import { isAbsolute, resolve } from 'node:path';
import type { SelfUpdateReason } from '../../shared/self-update.ts';
import { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, COMPOSE_WORKDIR_LABEL } from '../engine/engine.ts';
import { localDigestFor, parseImageRef } from '../updates/image-ref.ts';

export const COMPOSE_CONFIG_FILES_LABEL = 'com.docker.compose.project.config_files';

/** The parts of Kade's own container inspection the self-update reads. */
export interface OwnInspection {
  Name?: string;
  Config?: { Image?: string; Labels?: Record<string, string> | null };
  Mounts?: { Type?: string; Name?: string; Source?: string; Destination?: string }[];
}

export interface HelperMount {
  type: 'bind' | 'volume';
  /** Host path of a bind, name of a volume. */
  source: string;
  destination: string;
}

/** Everything the update needs to know about where Kade runs. */
export interface UpdateTarget {
  /** Config.Image as the container was created with: `registry/repository:tag`. */
  image: string;
  /** The image without its tag, for `<name>:<new tag>`. */
  name: string;
  registry: string;
  repository: string;
  tag: string;
  project: string;
  service: string;
  workingDir: string;
  configFiles: string[];
  /** The engine socket as mounted into Kade: the helper gets the same. */
  socket: HelperMount;
  /** SVC_DATA as mounted into Kade, where the helper leaves its result; null when it is not a mount. */
  data: HelperMount | null;
}

export type TargetResult = { ok: true; target: UpdateTarget } | { ok: false; code: SelfUpdateReason; reason: string };

const REASONS: Record<SelfUpdateReason, string> = {
  no_engine_socket: 'Kade has no engine socket mounted (a unix socket) to hand to the update helper',
  not_in_container: 'Kade does not run in a container (started from a checkout): update it with install.sh --update or git pull',
  not_registry_image: 'Kade does not run from a registry image (a locally built image): update it with install.sh --update',
  no_working_dir:
    "the compose labels of Kade's container do not say where its compose file and .env are (com.docker.compose.project.working_dir, config_files): start Kade with compose",
};

export const impossible = (code: SelfUpdateReason, detail?: string): TargetResult => ({
  ok: false,
  code,
  reason: detail ? `${REASONS[code]} (${detail})` : REASONS[code],
});

/** `name:tag` → `name`; a digest-pinned reference keeps no tag. */
export function imageName(image: string): string {
  const noDigest = image.split('@')[0] ?? image;
  const colon = noDigest.lastIndexOf(':');
  return colon > noDigest.lastIndexOf('/') ? noDigest.slice(0, colon) : noDigest;
}

function mountAt(own: OwnInspection, destination: string): HelperMount | null {
  const m = (own.Mounts ?? []).find((x) => x.Destination === destination);
  if (!m) return null;
  if (m.Type === 'bind' && m.Source) return { type: 'bind', source: m.Source, destination };
  if (m.Type === 'volume' && m.Name) return { type: 'volume', source: m.Name, destination };
  return null;
}

/**
 * Whether and how Kade can update itself, from its own container's inspection and the RepoDigests of
 * its image (an image pulled from or pushed to a registry has one for that repository; one built
 * locally has none). Pure: the reasons are decided here and tested without an engine.
 */
export function updateTarget(own: OwnInspection, repoDigests: readonly string[], o: { socketPath: string | null; stateDir: string }): TargetResult {
  if (o.socketPath === null) return impossible('no_engine_socket', 'DOCKER_HOST is not a unix socket');
  const socket = mountAt(own, o.socketPath);
  if (!socket) return impossible('no_engine_socket', `${o.socketPath} is not mounted into the container`);
  const image = own.Config?.Image ?? '';
  const ref = parseImageRef(image);
  if (!ref || ref.digest !== null || localDigestFor(ref, repoDigests) === null) return impossible('not_registry_image', image || 'no image');
  const labels = own.Config?.Labels ?? {};
  const workingDir = labels[COMPOSE_WORKDIR_LABEL] ?? '';
  const project = labels[COMPOSE_PROJECT_LABEL] ?? '';
  const service = labels[COMPOSE_SERVICE_LABEL] ?? '';
  const files = (labels[COMPOSE_CONFIG_FILES_LABEL] ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  if (!isAbsolute(workingDir) || !project || !service || files.length === 0) return impossible('no_working_dir');
  return {
    ok: true,
    target: {
      image,
      name: imageName(image),
      registry: ref.registry,
      repository: ref.repository,
      tag: ref.tag,
      project,
      service,
      workingDir,
      configFiles: files.map((f) => (isAbsolute(f) ? f : resolve(workingDir, f))),
      socket,
      data: mountAt(own, o.stateDir),
    },
  };
}

import { AppError, errorMessage } from '../core/errors.ts';
import type { DockerEngine } from '../engine/docker-engine.ts';
import { pullImage } from '../engine/image-pull.ts';
import type { RegistryCredentials } from '../updates/registry-client.ts';
import type { HelperMount, OwnInspection } from './target.ts';

/** A helper container to start: on `image`, as root, with these mounts, removed by the engine when it exits. */
export interface HelperContainer {
  name: string;
  image: string;
  cmd: string[];
  env: string[];
  mounts: HelperMount[];
  labels: Record<string, string>;
}

/** What the self-update asks of the engine. */
export interface SelfUpdateEngine {
  inspectOwn(id: string): Promise<OwnInspection>;
  /** The image's RepoDigests; empty when the engine does not have it. */
  repoDigests(image: string): Promise<string[]>;
  /** Pulls `ref` with the account when it belongs to the image's registry; `onLine` gets each status line. */
  pull(ref: string, auth: RegistryCredentials | null, onLine: (line: string) => void): Promise<void>;
  /** Starts the helper (a leftover container of that name is removed first); answers its id. */
  startHelper(h: HelperContainer): Promise<string>;
}

/** The status (own container, image digests) reads through the Engine; dockerode loads for a pull or the helper only. */
export function createSelfUpdateEngine(engine: DockerEngine): SelfUpdateEngine {
  return {
    async inspectOwn(id) {
      return (await engine.inspectContainer(id)) as OwnInspection;
    },
    async repoDigests(image) {
      return (await engine.inspectImage(image))?.repoDigests ?? [];
    },
    async pull(ref, auth, onLine) {
      const authconfig = auth ? { username: auth.user, password: auth.token, serveraddress: auth.host } : undefined;
      try {
        await pullImage(await engine.dockerode(), ref, { auth: authconfig, onStep: onLine });
      } catch (err) {
        throw new AppError('registry_unreachable', `pulling ${ref} failed: ${errorMessage(err)}`, { params: { image: ref }, cause: err });
      }
    },
    async startHelper(h) {
      const docker = await engine.dockerode();
      await docker
        .getContainer(h.name)
        .remove({ force: true })
        .catch(() => undefined);
      const c = await docker.createContainer({
        name: h.name,
        Image: h.image,
        // Not the image's entrypoint: the helper needs root (the socket, the .env's owner) and none of its folder preparation.
        Entrypoint: [h.cmd[0] ?? 'node'],
        Cmd: h.cmd.slice(1),
        WorkingDir: '/app',
        User: '0:0',
        Env: h.env,
        Labels: h.labels,
        HostConfig: {
          AutoRemove: true,
          Init: true,
          // It talks to the engine through the socket only.
          NetworkMode: 'none',
          Mounts: h.mounts.map((m) => ({ Type: m.type, Source: m.source, Target: m.destination })),
        },
      });
      await c.start();
      return c.id;
    },
  };
}

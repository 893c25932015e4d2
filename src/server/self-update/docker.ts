import { AppError, errorMessage } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';
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

/** What the self-update needs of the Engine. */
export function createSelfUpdateEngine(
  engine: Pick<Engine, 'inspectContainer' | 'inspectImage' | 'pullImage' | 'removeContainer' | 'createContainer' | 'startContainer'>,
): SelfUpdateEngine {
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
        await engine.pullImage(ref, { auth: authconfig, onStep: onLine });
      } catch (err) {
        throw new AppError('registry_unreachable', `pulling ${ref} failed: ${errorMessage(err)}`, { params: { image: ref }, cause: err });
      }
    },
    async startHelper(h) {
      await engine.removeContainer(h.name).catch(() => undefined);
      const id = await engine.createContainer({
        name: h.name,
        image: h.image,
        // Not the image's entrypoint: the helper needs root (the socket, the .env's owner) and none of its folder preparation.
        entrypoint: [h.cmd[0] ?? 'node'],
        cmd: h.cmd.slice(1),
        workingDir: '/app',
        user: '0:0',
        env: h.env,
        labels: h.labels,
        autoRemove: true,
        // It talks to the engine through the socket only.
        network: 'none',
        mounts: h.mounts.map((m) => ({ type: m.type, source: m.source, target: m.destination })),
      });
      await engine.startContainer(id);
      return id;
    },
  };
}

import { adoptedProjects } from './read/listing.ts';
import { diskIO } from './store/disk-io.ts';
import type { FolderIO } from './store/folder-io.ts';
import { createStackDirs, type StackDirs, type StackLocation } from './store/stack-dir.ts';
import { serviceJoins } from './use-cases/choices.ts';

/**
 * What other modules ask of the installed apps, read from their folders alone (`.svc.json`, the links of adopted
 * apps; never the engine, never a write): which apps are on a shared network, whose compose project a project is,
 * the subnets the apps hold, an app's `.env`. It stands on the folders only, so the composition root builds it
 * before the settings, the networks, the subnet pool and the stacks, which ask it instead of each other.
 */
export function createAppIndex(o: { libraryDir: string; stateDir: string; io?: FolderIO }) {
  const io = o.io ?? diskIO();
  const dirs = createStackDirs(io, o.libraryDir, o.stateDir);
  return { ...appIndexOn(dirs), ...dirs, envText: (loc: StackLocation): string => io.read(loc.envPath)?.toString('utf8') ?? '' };
}

export type AppIndex = ReturnType<typeof createAppIndex>;

/** The questions of the index over any view of the apps' folders (the stacks' own store answers them too). */
export function appIndexOn(dirs: StackDirs) {
  const metaOf = (name: string) => {
    const loc = dirs.find(name);
    return loc ? dirs.meta(loc) : null;
  };
  return {
    /** The apps whose metadata joins a shared network. */
    usingNetwork(network: string): string[] {
      return dirs.names().filter((n) => {
        const meta = metaOf(n);
        return meta !== null && (meta.networks.includes(network) || Object.keys(meta.services).some((s) => Object.hasOwn(serviceJoins(meta, s), network)));
      });
    },
    /** The app a compose project belongs to: its own name, or an adopted app's. */
    stackOfProject(projectName: string): string | null {
      const adopted = adoptedProjects(dirs).get(projectName);
      if (adopted) return adopted;
      return dirs.find(projectName) ? projectName : null;
    },
    /** The subnets recorded by every app, so Kade's pool never hands one out twice. */
    recordedSubnets(): string[] {
      return dirs.names().flatMap((n) => Object.values(metaOf(n)?.subnets ?? {}));
    },
    /** Installed app names per source template (`repo/app`), from the stack files alone: no engine call. */
    installedBySource(): Map<string, string[]> {
      const out = new Map<string, string[]>();
      for (const name of dirs.names()) {
        const source = metaOf(name)?.source;
        if (!source) continue;
        const key = `${source.repo}/${source.app}`;
        out.set(key, [...(out.get(key) ?? []), name]);
      }
      return out;
    },
  };
}

import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { errorMessage } from '../core/errors.ts';
import type { DockerodeLoader } from '../engine/docker-engine.ts';
import type { Seen } from './mounts.ts';

export type HostView = { ok: true; seen: Map<string, Seen> } | { ok: false; message: string };

// Prints one line per argument: its number of entries, or why there is none.
const SCRIPT =
  'for p in "$@"; do if [ -d "$p" ]; then if [ -r "$p" ] && [ -x "$p" ]; then ls -A "$p" | wc -l; else echo unreadable; fi; ' +
  'elif [ -e "$p" ] || [ -L "$p" ]; then echo not_a_folder; else echo missing; fi; done';

/**
 * The host's view of folders (host paths), read by a short-lived container of the probe image. It mounts
 * the host's root read-only rather than each folder: the engine refuses (or, with the older option,
 * creates) a missing bind source, and "missing on the host" must stay tellable from "empty". No network,
 * no capabilities, read-only, running as Kade's own account, so it reads only what Kade could.
 */
export async function readHostView(
  loadDocker: DockerodeLoader,
  opts: { image: string; user: string; paths: string[]; timeoutMs?: number; labels?: Record<string, string> },
): Promise<HostView> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  let container: Docker.Container | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const docker = await loadDocker();
    container = await docker.createContainer({
      Image: opts.image,
      Cmd: ['sh', '-c', SCRIPT, 'sh', ...opts.paths.map((p) => `/host${p}`)],
      User: opts.user,
      Labels: { 'kade.probe': 'doctor-mounts', ...opts.labels },
      AttachStdout: true,
      AttachStderr: true,
      Tty: false,
      HostConfig: {
        NetworkMode: 'none',
        Init: true,
        ReadonlyRootfs: true,
        CapDrop: ['ALL'],
        SecurityOpt: ['no-new-privileges'],
        Memory: 32 << 20,
        Mounts: [{ Type: 'bind', Source: '/', Target: '/host', ReadOnly: true }],
      },
    });
    const out: Buffer[] = [];
    const stdout = new PassThrough();
    stdout.on('data', (b: Buffer) => out.push(b));
    const stream = await container.attach({ stream: true, stdout: true, stderr: true });
    const ended = new Promise<void>((resolve, reject) => {
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', reject);
    });
    docker.modem.demuxStream(stream, stdout, new PassThrough().resume());
    await container.start();
    await Promise.race([
      ended,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the probe did not finish within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    const lines = Buffer.concat(out).toString('utf8').trim().split('\n');
    const seen = new Map<string, Seen>();
    opts.paths.forEach((p, i) => {
      const l = (lines[i] ?? '').trim();
      seen.set(p, /^\d+$/.test(l) ? Number(l) : l === 'missing' || l === 'not_a_folder' ? l : 'unreadable');
    });
    return { ok: true, seen };
  } catch (err) {
    const e = err as { statusCode?: number };
    const message = e.statusCode === 404 ? `probe image '${opts.image}' is not present on the engine` : errorMessage(err);
    return { ok: false, message };
  } finally {
    clearTimeout(timer);
    await container?.remove({ force: true }).catch(() => undefined);
  }
}

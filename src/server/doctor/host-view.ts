import { AppError, errorMessage } from '../core/errors.ts';
import type { Engine } from '../engine/engine.ts';
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
  engine: Pick<Engine, 'runContainer'>,
  opts: { image: string; user: string; paths: string[]; timeoutMs?: number; labels?: Record<string, string> },
): Promise<HostView> {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  try {
    const run = await engine.runContainer(
      {
        image: opts.image,
        cmd: ['sh', '-c', SCRIPT, 'sh', ...opts.paths.map((p) => `/host${p}`)],
        user: opts.user,
        labels: { 'kade.probe': 'doctor-mounts', ...opts.labels },
        network: 'none',
        powers: 'none',
        readOnlyRoot: true,
        memoryBytes: 32 << 20,
        mounts: [{ type: 'bind', source: '/', target: '/host', readOnly: true }],
      },
      { timeoutMs },
    );
    const lines = run.stdout.trim().split('\n');
    const seen = new Map<string, Seen>();
    opts.paths.forEach((p, i) => {
      const l = (lines[i] ?? '').trim();
      seen.set(p, /^\d+$/.test(l) ? Number(l) : l === 'missing' || l === 'not_a_folder' ? l : 'unreadable');
    });
    return { ok: true, seen };
  } catch (err) {
    if (err instanceof AppError && err.params.reason === 'timeout') return { ok: false, message: `the probe did not finish within ${timeoutMs} ms` };
    const missing = err instanceof AppError && err.code === 'not_found' && err.params.what === 'image';
    return { ok: false, message: missing ? `probe image '${opts.image}' is not present on the engine` : errorMessage(err) };
  }
}

import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { FolderIO } from './folder-io.ts';

/**
 * What Kade last wrote (or an admin accepted) of each file compose reads for an app: the compose file, its
 * overrides and `.env`, by name, with a SHA-256 of each. Kept in SVC_DATA/seals/<app>.json, where no app may bind,
 * so a container that rewrites its own compose file is caught by the next compose run (compose-gate.ts).
 * `approved` is what the writer's own judgment let through: outside paths an admin confirmed and powers, with the
 * role of the one who wrote the files, so an operator's restart of an app an admin set up keeps working.
 */
export const Seal = z.object({
  files: z.record(z.string(), z.string().nullable()),
  approved: z.object({ outside: z.array(z.string()), powers: z.array(z.string()), role: z.enum(['admin', 'operator', 'viewer']) }),
  by: z.string(),
  at: z.string(),
});
export type SealT = z.infer<typeof Seal>;

/** The files compose reads for a project, each under the name the seal keeps it by (a path move keeps the names). */
export interface SealedFiles {
  compose: string;
  overrides: readonly string[];
  env: string;
}

export const fileKeys = (f: SealedFiles): [string, string][] => [
  [`compose:${basename(f.compose)}`, f.compose],
  ...f.overrides.map((o): [string, string] => [`override:${basename(o)}`, o]),
  ['env', f.env],
];

/** The seals of every app in `dir` (SVC_DATA/seals), read and written through the stack store's `io`. */
export function createSeals(io: FolderIO, dir: string) {
  const pathOf = (app: string) => join(dir, `${app}.json`);

  /** SHA-256 of a file's bytes; null when it does not exist (an app without `.env`). */
  function hash(path: string): string | null {
    const bytes = io.read(path);
    return bytes === null ? null : createHash('sha256').update(bytes).digest('hex');
  }

  function read(app: string): SealT | null {
    try {
      const r = Seal.safeParse(JSON.parse(io.read(pathOf(app))?.toString('utf8') ?? ''));
      return r.success ? r.data : null;
    } catch {
      return null;
    }
  }

  function write(app: string, seal: SealT): void {
    io.mkdir(dir, 0o700);
    io.write([{ path: pathOf(app), content: `${JSON.stringify(seal, null, 2)}\n`, mode: 0o600 }]);
  }

  /** The seal's text (a snapshot keeps it beside the files, so a rollback puts both back together). */
  const text = (app: string): string | null => io.read(pathOf(app))?.toString('utf8') ?? null;
  const putText = (app: string, t: string | null) => (t === null ? forget(app) : write(app, Seal.parse(JSON.parse(t))));
  const forget = (app: string) => io.remove(pathOf(app));
  /** Whether the app has a seal file at all (apps from before seals have none). */
  const exists = (app: string) => io.stat(pathOf(app)) !== null;

  /** The first file whose bytes differ from the seal, or null when all match. */
  function changed(seal: SealT, files: SealedFiles): { key: string; path: string } | null {
    const now = new Map(fileKeys(files));
    for (const [key, path] of now) if ((seal.files[key] ?? null) !== hash(path)) return { key, path };
    // An override the seal knows that compose no longer reads is no change; one it does not know was caught above.
    return null;
  }

  return { read, write, text, putText, forget, exists, changed, hash };
}

export type Seals = ReturnType<typeof createSeals>;

import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../core/fs-atomic.ts';

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

/** SHA-256 of a file's bytes; null when it does not exist (an app without `.env`). */
export function hashFile(path: string): string | null {
  if (!existsSync(path)) return null;
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export function createSeals(dir: string) {
  const pathOf = (app: string) => join(dir, `${app}.json`);

  function read(app: string): SealT | null {
    try {
      const r = Seal.safeParse(JSON.parse(readFileSync(pathOf(app), 'utf8')));
      return r.success ? r.data : null;
    } catch {
      return null;
    }
  }

  function write(app: string, seal: SealT): void {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(pathOf(app), `${JSON.stringify(seal, null, 2)}\n`, 0o600);
  }

  /** The seal's text (a snapshot keeps it beside the files, so a rollback puts both back together). */
  const text = (app: string): string | null => (existsSync(pathOf(app)) ? readFileSync(pathOf(app), 'utf8') : null);
  const putText = (app: string, t: string | null) => (t === null ? forget(app) : write(app, Seal.parse(JSON.parse(t))));
  const forget = (app: string) => rmSync(pathOf(app), { force: true });

  /** The first file whose bytes differ from the seal, or null when all match. */
  function changed(seal: SealT, files: SealedFiles): { key: string; path: string } | null {
    const now = new Map(fileKeys(files));
    for (const [key, path] of now) if ((seal.files[key] ?? null) !== hashFile(path)) return { key, path };
    // An override the seal knows that compose no longer reads is no change; one it does not know was caught above.
    return null;
  }

  return { read, write, text, putText, forget, changed, pathOf };
}

export type Seals = ReturnType<typeof createSeals>;

import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { SnapshotT } from '../../shared/stack-config.ts';
import { notFound } from '../core/errors.ts';
import { failpoint } from '../core/failpoint.ts';
import { type AtomicFile, writeFileAtomic, writeFilesAtomic } from '../core/fs-atomic.ts';
import type { Seals } from './file-seal.ts';
import type { StackLocation } from './stack-dir.ts';
import { COMPOSE_NAMES } from './stack-files.ts';

/** How many snapshots of one app are kept; older ones are removed when a new one is taken. */
export const SNAPSHOTS_KEPT = 20;

const Record_ = z.object({
  id: z.string(),
  stack: z.string(),
  created_at: z.string(),
  reason: z.string(),
  files: z.array(z.object({ key: z.enum(['compose', 'env', 'meta']), path: z.string(), mode: z.number(), present: z.boolean() })),
});
type SnapshotRecord = z.infer<typeof Record_>;

const ID = /^[0-9TZ]{16,20}-[0-9a-f]{8}$/;

/**
 * Copies of an app's compose file, `.env` and metadata taken before a change, so a failed or unwanted
 * change can be undone byte for byte. This is the one "before a change" step: when backups exist it
 * becomes a real backup. Stored under SVC_DATA/snapshots/<app>/<id>/, readable by Kade only (.env holds secrets).
 */
export function createSnapshots(root: string, clock: () => Date, seals?: Pick<Seals, 'text' | 'putText'>) {
  const dirOf = (stack: string) => join(root, stack);
  const targets = (loc: StackLocation) => [
    { key: 'compose' as const, path: loc.composeFile ?? join(loc.dir, 'docker-compose.yml') },
    { key: 'env' as const, path: loc.envPath },
    { key: 'meta' as const, path: loc.metaPath },
  ];

  function read(stack: string, id: string): SnapshotRecord | null {
    if (!ID.test(id)) return null;
    try {
      return Record_.parse(JSON.parse(readFileSync(join(dirOf(stack), id, 'snapshot.json'), 'utf8')));
    } catch {
      return null;
    }
  }

  const present = (r: SnapshotRecord): SnapshotT => ({
    id: r.id,
    stack: r.stack,
    created_at: r.created_at,
    reason: r.reason,
    files: r.files.filter((f) => f.present).map((f) => basename(f.path)),
  });

  function list(stack: string): SnapshotT[] {
    let ids: string[];
    try {
      ids = readdirSync(dirOf(stack)).filter((n) => ID.test(n));
    } catch {
      return [];
    }
    return ids
      .sort()
      .reverse()
      .map((id) => read(stack, id))
      .filter((r): r is SnapshotRecord => r !== null)
      .map(present);
  }

  function take(loc: StackLocation, reason: string): SnapshotT {
    const now = clock();
    const id = `${now.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
    const dir = join(dirOf(loc.name), id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(root, 0o700);
    const files = targets(loc).map((t) => {
      if (!existsSync(t.path)) return { ...t, mode: 0o600, present: false };
      const mode = statSync(t.path).mode & 0o777;
      writeFileAtomic(join(dir, t.key), readFileSync(t.path), 0o600);
      return { ...t, mode, present: true };
    });
    // The seal goes with the files (file-seal.ts): a rollback puts back the files and what Kade knew of them together.
    const seal = seals?.text(loc.name) ?? null;
    if (seal !== null) writeFileAtomic(join(dir, 'seal.json'), seal, 0o600);
    const record: SnapshotRecord = { id, stack: loc.name, created_at: now.toISOString(), reason, files };
    writeFileAtomic(join(dir, 'snapshot.json'), `${JSON.stringify(record, null, 2)}\n`, 0o600);
    for (const old of list(loc.name).slice(SNAPSHOTS_KEPT)) rmSync(join(dirOf(loc.name), old.id), { recursive: true, force: true });
    return present(record);
  }

  /**
   * Puts the files back as they were, byte for byte and with their modes; a file that did not exist is
   * removed. Files already equal are left alone (a full disk cannot stop a restore that changes nothing),
   * and every changed file is written to a temp file before the first one is replaced.
   */
  function restore(loc: StackLocation, id: string): void {
    const r = read(loc.name, id);
    if (!r) throw notFound('snapshot', id);
    const allowed = new Map(targets(loc).map((t) => [t.key, t.path]));
    const writes: AtomicFile[] = [];
    const removals: string[] = [];
    for (const f of r.files) {
      // Only the app's own three files, wherever the record says they were: a changed record cannot write elsewhere.
      const path = f.key === 'compose' ? (COMPOSE_NAMES.includes(basename(f.path)) ? join(loc.dir, basename(f.path)) : null) : allowed.get(f.key);
      if (!path) continue;
      if (!f.present) {
        removals.push(path);
        continue;
      }
      const content = readFileSync(join(dirOf(loc.name), id, f.key));
      if (existsSync(path) && (statSync(path).mode & 0o777) === f.mode && readFileSync(path).equals(content)) continue;
      writes.push({ path, content, mode: f.mode });
    }
    writeFilesAtomic(writes, {
      afterRename: (path) => {
        chmodSync(path, writes.find((w) => w.path === path)?.mode ?? 0o600);
        failpoint('snapshot.restore.file');
      },
    });
    for (const path of removals) rmSync(path, { force: true });
    const seal = join(dirOf(loc.name), id, 'seal.json');
    // A snapshot from before seals existed leaves the seal as it is: the gate then asks an admin to accept the files.
    if (seals && existsSync(seal)) seals.putText(loc.name, readFileSync(seal, 'utf8'));
  }

  const forget = (stack: string) => rmSync(dirOf(stack), { recursive: true, force: true });

  /** The compose and `.env` texts a snapshot holds (null where it holds none), to judge them before a restore. */
  function texts(stack: string, id: string): { compose: string | null; env: string | null } {
    const r = read(stack, id);
    if (!r) throw notFound('snapshot', id);
    const text = (key: 'compose' | 'env') => (r.files.some((f) => f.key === key && f.present) ? readFileSync(join(dirOf(stack), id, key), 'utf8') : null);
    return { compose: text('compose'), env: text('env') };
  }

  return { take, list, restore, forget, texts };
}

export type Snapshots = ReturnType<typeof createSnapshots>;

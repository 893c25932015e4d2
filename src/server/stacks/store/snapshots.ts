import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { SnapshotT } from '../../../shared/stack-config.ts';
import { notFound } from '../../core/errors.ts';
import { failpoint } from '../../core/failpoint.ts';
import type { Seals } from './file-seal.ts';
import type { FileWrite, FolderIO } from './folder-io.ts';
import type { StackLocation } from './stack-dir.ts';
import { COMPOSE_NAMES } from './stack-files.ts';

/** How many snapshots of one app are kept; older ones are removed when a new one is taken. */
export const SNAPSHOTS_KEPT = 20;

/** The files of an app a snapshot holds: compose file, `.env`, metadata and (an adopted app's) network override. */
export type SnapshotKey = 'compose' | 'env' | 'meta' | 'override';

const Record_ = z.object({
  id: z.string(),
  stack: z.string(),
  created_at: z.string(),
  reason: z.string(),
  files: z.array(z.object({ key: z.enum(['compose', 'env', 'meta', 'override']), path: z.string(), mode: z.number(), present: z.boolean() })),
  /** Whether the app had a seal when the snapshot was taken (absent in snapshots from before seals existed). */
  sealed: z.boolean().optional(),
});
type SnapshotRecord = z.infer<typeof Record_>;

const ID = /^[0-9TZ]{16,20}-[0-9a-f]{8}$/;

export interface SnapshotDeps {
  io: FolderIO;
  /** SVC_DATA/snapshots. */
  root: string;
  clock: () => Date;
  seals: Pick<Seals, 'text' | 'putText'>;
  /** Where each of an app's files is (stack-store.ts decides). */
  targets: (loc: StackLocation) => { key: SnapshotKey; path: string }[];
}

const present = (r: SnapshotRecord): SnapshotT => ({
  id: r.id,
  stack: r.stack,
  created_at: r.created_at,
  reason: r.reason,
  files: r.files.filter((f) => f.present).map((f) => basename(f.path)),
});

/** The copies of an app's files into a snapshot's folder `dir`, and what the record says of each. */
function copiesOf(d: SnapshotDeps, loc: StackLocation, dir: string) {
  const copies: FileWrite[] = [];
  const files = d.targets(loc).map((t) => {
    const st = d.io.stat(t.path);
    const bytes = st?.kind === 'file' ? d.io.read(t.path) : null;
    if (!st || bytes === null) return { ...t, mode: 0o600, present: false };
    copies.push({ path: join(dir, t.key), content: bytes, mode: 0o600 });
    return { ...t, mode: st.mode, present: true };
  });
  return { copies, files };
}

/**
 * What a return to snapshot `r` (kept in `dir`) writes and removes. Only the app's own files, wherever the record
 * says they were: a changed record cannot write elsewhere. Files already equal are left alone (a full disk cannot
 * stop a restore that changes nothing).
 */
function restorePlan(d: SnapshotDeps, r: SnapshotRecord, loc: StackLocation, dir: string): { writes: FileWrite[]; removals: string[] } {
  const allowed = new Map(d.targets(loc).map((t) => [t.key, t.path]));
  const writes: FileWrite[] = [];
  const removals: string[] = [];
  for (const f of r.files) {
    const path = f.key === 'compose' ? (COMPOSE_NAMES.includes(basename(f.path)) ? join(loc.dir, basename(f.path)) : null) : allowed.get(f.key);
    if (!path) continue;
    if (!f.present) {
      removals.push(path);
      continue;
    }
    const content = d.io.read(join(dir, f.key));
    if (content === null) throw notFound('snapshot', r.id);
    const now = d.io.stat(path);
    if (now?.kind === 'file' && now.mode === f.mode && d.io.read(path)?.equals(content)) continue;
    writes.push({ path, content, mode: f.mode });
  }
  return { writes, removals };
}

/**
 * Copies of an app's files taken before a change, so a failed or unwanted change can be undone byte for byte: the
 * store's one rollback (stack-store.ts takes them inside its writes). Stored under SVC_DATA/snapshots/<app>/<id>/,
 * readable by Kade only (.env holds secrets), with the app's seal beside the files.
 */
export function createSnapshots(d: SnapshotDeps) {
  const { io } = d;
  const dirOf = (stack: string) => join(d.root, stack);
  const text = (path: string) => io.read(path)?.toString('utf8') ?? null;

  function read(stack: string, id: string): SnapshotRecord | null {
    if (!ID.test(id)) return null;
    try {
      return Record_.parse(JSON.parse(text(join(dirOf(stack), id, 'snapshot.json')) ?? ''));
    } catch {
      return null;
    }
  }

  function list(stack: string): SnapshotT[] {
    return io
      .list(dirOf(stack))
      .map((e) => e.name)
      .filter((n) => ID.test(n))
      .sort()
      .reverse()
      .map((id) => read(stack, id))
      .filter((r): r is SnapshotRecord => r !== null)
      .map(present);
  }

  function take(loc: StackLocation, reason: string): SnapshotT {
    const now = d.clock();
    const id = `${now.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
    const dir = join(dirOf(loc.name), id);
    io.mkdir(d.root, 0o700);
    io.mkdir(dir, 0o700);
    const { copies, files } = copiesOf(d, loc, dir);
    // The seal goes with the files (file-seal.ts): a rollback puts back the files and what Kade knew of them together.
    const seal = d.seals.text(loc.name);
    if (seal !== null) copies.push({ path: join(dir, 'seal.json'), content: seal, mode: 0o600 });
    const record: SnapshotRecord = { id, stack: loc.name, created_at: now.toISOString(), reason, files, sealed: seal !== null };
    io.write(copies);
    io.write([{ path: join(dir, 'snapshot.json'), content: `${JSON.stringify(record, null, 2)}\n`, mode: 0o600 }]);
    for (const old of list(loc.name).slice(SNAPSHOTS_KEPT)) io.remove(join(dirOf(loc.name), old.id));
    return present(record);
  }

  /**
   * Puts the files back as they were, byte for byte and with their modes; a file that did not exist is
   * removed. Every changed file is written to a temp file before the first one is replaced.
   */
  function restore(loc: StackLocation, id: string): void {
    const r = read(loc.name, id);
    if (!r) throw notFound('snapshot', id);
    const { writes, removals } = restorePlan(d, r, loc, join(dirOf(loc.name), id));
    io.write(writes, { afterRename: () => failpoint('snapshot.restore.file') });
    for (const path of removals) io.remove(path);
    // An app that had no seal has none again (sealed as found at its next judgment, like an app from before seals);
    // a snapshot from before seals existed leaves the seal as it is: the gate then asks an admin to accept the files.
    const seal = text(join(dirOf(loc.name), id, 'seal.json'));
    if (seal !== null || r.sealed === false) d.seals.putText(loc.name, seal);
  }

  const forget = (stack: string) => io.remove(dirOf(stack));

  /** The compose and `.env` texts a snapshot holds (null where it holds none), to judge them before a restore. */
  function texts(stack: string, id: string): { compose: string | null; env: string | null } {
    const r = read(stack, id);
    if (!r) throw notFound('snapshot', id);
    const held = (key: 'compose' | 'env') => (r.files.some((f) => f.key === key && f.present) ? text(join(dirOf(stack), id, key)) : null);
    return { compose: held('compose'), env: held('env') };
  }

  return { take, list, restore, forget, texts };
}

export type Snapshots = ReturnType<typeof createSnapshots>;

import { createHash } from 'node:crypto';
import { createReadStream, existsSync, lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppError, errorMessage } from '../core/errors.ts';
import { run } from '../core/exec.ts';

/**
 * Copies everything below `from` into the (existing, empty) folder `to`, keeping owners, modes, times,
 * links as links and hard links as hard links. GNU `cp -a` does all of that and streams; Node's cpSync
 * keeps neither owners nor hard links.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  // Through run(): a copy a killed Kade started dies with it, so the next start's resolver never removes the
  // copy while cp still writes into it. No real bound on a copy of every app's data: a day.
  const res = await run('cp', ['-a', '--', `${from}/.`, `${to}/`], { maxOutput: 4 << 20, timeoutMs: 24 * 3600_000 }).catch((err: unknown) => {
    throw new AppError('path_unreachable', `copying ${from} to ${to} failed: ${errorMessage(err)}`, { params: { path: to }, cause: err });
  });
  if (res.code === 0) return;
  const stderr = res.stderr.trim();
  const full = /No space left|Disk quota/i.test(stderr);
  throw new AppError(full ? 'disk_full' : 'path_unreachable', `copying ${from} to ${to} failed: ${stderr.split('\n')[0] || `cp ended with code ${res.code}`}`, {
    params: { path: to },
  });
}

/** One entry of a folder tree as the copy must keep it. */
interface Entry {
  type: 'file' | 'dir' | 'link' | 'other';
  mode: number;
  uid: number;
  gid: number;
  size: number;
  link: string | null;
}

function walk(root: string): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const visit = (rel: string) => {
    const path = rel ? join(root, rel) : root;
    const st = lstatSync(path);
    const type = st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
    out.set(rel, {
      type,
      mode: st.mode & 0o7777,
      uid: st.uid,
      gid: st.gid,
      size: type === 'file' ? st.size : 0,
      link: type === 'link' ? readlinkSync(path) : null,
    });
    if (type === 'dir') for (const name of readdirSync(path).sort()) visit(rel ? join(rel, name) : name);
  };
  visit('');
  return out;
}

async function digest(path: string): Promise<string> {
  const h = createHash('sha256');
  await pipeline(createReadStream(path), h);
  return h.digest('hex');
}

/**
 * The copy is verified, not trusted: the same entries with the same type, owner, mode, link target and
 * size, and every file's content hashed on both sides. Returns the first differences (empty: equal).
 * The top folder's own mode and owner are the destination's, not compared.
 */
export async function compareTrees(from: string, to: string, limit = 10): Promise<string[]> {
  const a = walk(from);
  const b = walk(to);
  const diffs: string[] = [];
  const say = (d: string) => diffs.length < limit && diffs.push(d);
  for (const [rel, e] of a) {
    const f = b.get(rel);
    const name = rel || '.';
    if (!f) {
      say(`${name} is missing in the copy`);
      continue;
    }
    if (e.type !== f.type) say(`${name} is a ${f.type} in the copy, a ${e.type} in the original`);
    else if (rel && (e.mode !== f.mode || e.uid !== f.uid || e.gid !== f.gid)) say(`${name} has another owner or mode in the copy`);
    else if (e.link !== f.link) say(`${name} points elsewhere in the copy`);
    else if (e.size !== f.size) say(`${name} has another size in the copy`);
    else if (e.type === 'file' && (await digest(join(from, rel))) !== (await digest(join(to, rel)))) say(`${name} has other content in the copy`);
    if (diffs.length >= limit) break;
  }
  for (const rel of b.keys()) if (!a.has(rel)) say(`${rel} is in the copy but not in the original`);
  return diffs;
}

/** Whether `path` is a folder with nothing in it. */
export const isEmptyDir = (p: string): boolean => lstatSync(p).isDirectory() && readdirSync(p).length === 0;

/** Whether anything is at `path`. */
export const exists = (p: string): boolean => existsSync(p);

/** Makes a folder to copy into (and its parents). */
export const makeTree = (p: string): void => {
  mkdirSync(p, { recursive: true });
};

/** Empties a folder (the copy of a move that is undone), keeping the folder itself. */
export function emptyTree(p: string): void {
  for (const entry of readdirSync(p)) rmSync(join(p, entry), { recursive: true, force: true });
}

/** Removes a folder and all it holds (the old folder once a move is saved). */
export const removeTree = (p: string): void => rmSync(p, { recursive: true, force: true });

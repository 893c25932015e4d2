import { posix } from 'node:path';
import { AppError } from '../../core/errors.ts';
import type { EntryKind, FolderIO } from './folder-io.ts';

type Node = { kind: 'file'; data: Buffer; mode: number; stamp: number } | { kind: 'dir'; mode: number; stamp: number } | { kind: 'link'; target: string };

const fsError = (code: string, op: string, path: string) => Object.assign(new Error(`${code}: ${op} '${path}'`), { code, path });

/** Switches a test turns on to make the next calls fail the way the disk does. */
export interface MemoryFaults {
  /** Every write fails with `disk_full` before any file changes, as a full disk does (fs-atomic.ts). */
  full: boolean;
}

export type MemoryIO = FolderIO & { faults: MemoryFaults };

/** The tree: entries by absolute path, and how a path is resolved through links like the kernel does. */
function createTree() {
  const nodes = new Map<string, Node>([['/', { kind: 'dir', mode: 0o755, stamp: 0 }]]);
  let tick = 0;

  /** The entry at `path` with every link on the way resolved (the last one only when `follow`); null when a parent is missing. */
  function locate(path: string, follow: boolean, hops = 0): { path: string; node: Node | undefined } | null {
    if (!path.startsWith('/')) throw fsError('EINVAL', 'resolve', path);
    const parts = posix.normalize(path).split('/').filter(Boolean);
    let cur = '';
    for (let i = 0; i < parts.length; i++) {
      const next = `${cur}/${parts[i]}`;
      const node = nodes.get(next);
      const last = i === parts.length - 1;
      if (node?.kind === 'link' && (!last || follow)) {
        if (hops > 40) return null;
        const target = node.target.startsWith('/') ? node.target : posix.join(cur || '/', node.target);
        const rest = parts.slice(i + 1).join('/');
        return locate(rest ? `${target}/${rest}` : target, follow, hops + 1);
      }
      if (last) return { path: next, node };
      if (node?.kind !== 'dir') return null;
      cur = next;
    }
    return { path: '/', node: nodes.get('/') };
  }

  /** The resolved path a new entry at `path` gets; throws ENOENT when its folder does not exist. */
  function place(path: string, op: string): string {
    const parent = locate(posix.dirname(path), true);
    if (parent?.node?.kind !== 'dir') throw fsError('ENOENT', op, path);
    return posix.join(parent.path, posix.basename(path));
  }

  const below = (path: string) => [...nodes.keys()].filter((k) => k.startsWith(path === '/' ? '/' : `${path}/`) && k !== path);

  return { nodes, locate, place, below, stamp: () => ++tick };
}

type Tree = ReturnType<typeof createTree>;

function reads({ nodes, locate }: Tree): Pick<FolderIO, 'read' | 'stat' | 'kind' | 'realpath' | 'readlink' | 'list'> {
  return {
    read(path) {
      const n = locate(path, true)?.node;
      return n?.kind === 'file' ? Buffer.from(n.data) : null;
    },
    stat(path) {
      const n = locate(path, true)?.node;
      if (!n || n.kind === 'link') return null;
      return { kind: n.kind, mode: n.mode, stamp: String(n.stamp) };
    },
    kind: (path) => locate(path, false)?.node?.kind ?? null,
    realpath(path) {
      const at = locate(path, true);
      return at?.node ? at.path : null;
    },
    readlink(path) {
      const n = locate(path, false)?.node;
      return n?.kind === 'link' ? n.target : null;
    },
    list(dir) {
      const at = locate(dir, true);
      if (at?.node?.kind !== 'dir') return [];
      const prefix = at.path === '/' ? '/' : `${at.path}/`;
      const out: { name: string; kind: EntryKind }[] = [];
      for (const [k, n] of nodes) {
        const name = k.slice(prefix.length);
        if (k.startsWith(prefix) && name !== '' && !name.includes('/')) out.push({ name, kind: n.kind });
      }
      return out.sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}

function changes({ nodes, locate, place, below, stamp }: Tree, faults: MemoryFaults): Omit<FolderIO, keyof ReturnType<typeof reads>> {
  return {
    write(files, opts = {}) {
      const targets = files.map((f) => {
        const at = place(f.path, 'open');
        if (nodes.get(at)?.kind === 'dir') throw fsError('EISDIR', 'rename', f.path);
        return at;
      });
      const first = files[0]?.path ?? '';
      if (faults.full) throw new AppError('disk_full', `disk full: there is no space left to write ${first}`, { params: { path: first } });
      files.forEach((f, i) => {
        nodes.set(targets[i] as string, { kind: 'file', data: Buffer.from(f.content), mode: f.mode & 0o777, stamp: stamp() });
        opts.afterRename?.(f.path);
      });
    },
    remove(path) {
      const at = locate(path, false);
      if (!at?.node || at.path === '/') return;
      for (const k of below(at.path)) nodes.delete(k);
      nodes.delete(at.path);
    },
    rename(from, to) {
      const src = locate(from, false);
      if (!src?.node) throw fsError('ENOENT', 'rename', from);
      const dest = place(to, 'rename');
      if (nodes.get(dest)?.kind === 'dir' && below(dest).length > 0) throw fsError('ENOTEMPTY', 'rename', to);
      if (dest === src.path || dest.startsWith(`${src.path}/`)) throw fsError('EINVAL', 'rename', to);
      const moved = [src.path, ...below(src.path)].map((k) => [k, nodes.get(k) as Node] as const);
      for (const [k] of moved) nodes.delete(k);
      for (const [k, n] of moved) nodes.set(dest + k.slice(src.path.length), n);
    },
    mkdir(path, mode) {
      let cur = '';
      for (const part of posix.normalize(path).split('/').filter(Boolean)) {
        const next = locate(`${cur}/${part}`, true);
        if (!next) throw fsError('ENOENT', 'mkdir', path);
        if (!next.node) nodes.set(next.path, { kind: 'dir', mode, stamp: stamp() });
        else if (next.node.kind !== 'dir') throw fsError('ENOTDIR', 'mkdir', path);
        cur = next.path;
      }
      const last = nodes.get(cur);
      if (last?.kind === 'dir') last.mode = mode;
    },
    symlink(target, path) {
      const at = place(path, 'symlink');
      if (nodes.has(at)) throw fsError('EEXIST', 'symlink', path);
      nodes.set(at, { kind: 'link', target });
    },
  };
}

/**
 * The stack store's folders as a tree in memory: files with bytes and modes, folders and links (an adopted app's
 * reference), links followed like the kernel does. For unit tests of everything that goes through the store; it
 * passes the same cases as the disk (stack-store.contract.ts), and where they part the disk is right.
 */
export function memoryIO(): MemoryIO {
  const tree = createTree();
  const faults: MemoryFaults = { full: false };
  return { faults, ...reads(tree), ...changes(tree, faults) };
}

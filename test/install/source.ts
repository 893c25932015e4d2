import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type Registry, startRegistry } from '../helpers/registry.ts';
import { tempDir } from './installer.ts';

const execFileP = promisify(execFile);

export async function run(cmd: string, args: string[], opts: { cwd?: string; timeout?: number } = {}): Promise<string> {
  const { stdout } = await execFileP(cmd, args, { cwd: opts.cwd, timeout: opts.timeout ?? 120_000, maxBuffer: 64 << 20 });
  return stdout.trim();
}

/** The committed tree of this repository (HEAD), as the installer would clone it. */
export async function headTree(): Promise<string> {
  const dir = await tempDir('src');
  await run('sh', ['-c', 'git archive --format=tar HEAD | tar -x -C "$1"', 'sh', dir]);
  return dir;
}

/** A copy of `tree` with `edit` applied to it (for the commits an update fetches). */
export async function variant(tree: string, edit: (dir: string) => Promise<void>): Promise<string> {
  const dir = await tempDir('variant');
  await cp(tree, dir, { recursive: true });
  await edit(dir);
  return dir;
}

/** `tree` packed as a forge packs it: a .tar.gz with one top folder. */
export async function archiveOf(tree: string, top: string): Promise<Buffer> {
  const dir = await tempDir('archive');
  try {
    await mkdir(join(dir, 'pack'));
    await cp(tree, join(dir, 'pack', top), { recursive: true });
    await run('tar', ['-czf', join(dir, 'out.tar.gz'), '-C', join(dir, 'pack'), top]);
    return await readFile(join(dir, 'out.tar.gz'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A git-server intercept answering `GET /<name>/archive/<branch>.tar.gz` with `archive` (when authorized). */
export function serveArchive(name: string, branch: string, archive: () => Buffer | undefined) {
  return (req: IncomingMessage, res: ServerResponse, authorized: boolean): boolean => {
    if (req.url !== `/${name}/archive/${branch}.tar.gz`) return false;
    const body = archive();
    if (!authorized || body === undefined) return false;
    res.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Length': body.length });
    res.end(body);
    return true;
  };
}

/** What of the installer's private work folders under `tmp` exists right now: file name → mode and content. */
export function tokenFiles(tmp: string): { name: string; mode: number; content: string }[] {
  const found: { name: string; mode: number; content: string }[] = [];
  for (const entry of readdirSync(tmp)) {
    if (!entry.startsWith('kade-install.')) continue;
    const dir = join(tmp, entry);
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (!existsSync(file)) continue;
      found.push({ name, mode: statSync(file).mode & 0o777, content: readFileSync(file, 'utf8') });
    }
  }
  return found;
}

/** Kade's image from kadeImage() pushed to a local registry: `SVC_IMAGE`/`SVC_TAG` for installs that pull. */
export async function pushedImage(local: string): Promise<{ registry: Registry; image: string; tag: string }> {
  const registry = await startRegistry();
  const image = `${registry.host}/kadetest/kade`;
  const tag = 'install-test';
  await run('docker', ['tag', local, `${image}:${tag}`]);
  await run('docker', ['push', `${image}:${tag}`], { timeout: 300_000 });
  return { registry, image, tag };
}

/** The first line of `file` that starts with `KEY=`, without it. */
export async function envValue(file: string, key: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .find((l) => l.startsWith(`${key}=`))
    ?.slice(key.length + 1);
}

export async function writeText(file: string, text: string): Promise<void> {
  await writeFile(file, text);
}

/**
 * The judgment of a restore (STYLE: a restore is data, judged as the acting user like a fresh install): the
 * archive's compose file and `.env` pass the compose and bind policies for the one who restores, in the request,
 * before any job starts and before anything moves. An old backup does not bring back powers or host folders an
 * admin has since taken away, and an operator cannot restore an app only an admin could install.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../core/errors.ts';
import type { Actor } from '../core/events.ts';
import { COMPOSE_NAMES, ENV_FILE } from '../stacks/store/stack-files.ts';
import { type PeekedEntry, peekStackFiles } from './archive-peek.ts';
import type { BackupStacks } from './backups.service.ts';

/** Compose and `.env` files are small; the editors take 512 KiB of text. Anything bigger is no app Kade wrote. */
export const MAX_JUDGED_BYTES = 1024 * 1024;

/** The files judged, as hashes: the extracted files must be these bytes (checkStaged). */
export interface JudgedFiles {
  compose: { name: string; sha256: string };
  env: { sha256: string } | null;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function fileOf(stack: string, name: string, e: PeekedEntry | undefined): Extract<PeekedEntry, { type: 'file' }> | null {
  if (!e) return null;
  if (e.type === 'file') return e;
  throw new AppError('archive_refused', `archive refused: stack/${name} is ${e.what}, not a file; the backup of '${stack}' is not restored`, {
    params: { entry: `stack/${name}`, reason: e.what, problems: 1 },
  });
}

/**
 * Reads the archive's compose file (the first of COMPOSE_NAMES it holds, as compose picks it) and `.env`, and judges
 * them as `actor` would be judged installing them as `stack` (`stacks.judge` throws the refusal: app_powers_refused,
 * forbidden_path with the paths an admin may confirm, compose_invalid). Answers what was judged.
 */
export async function judgeArchive(
  actor: Actor,
  archive: string,
  stack: string,
  confirm: readonly string[] | undefined,
  stacks: Pick<BackupStacks, 'judge'>,
): Promise<JudgedFiles> {
  const peeked = await peekStackFiles(archive, [...COMPOSE_NAMES, ENV_FILE], MAX_JUDGED_BYTES);
  const composeName = COMPOSE_NAMES.find((n) => peeked.has(n));
  const compose = composeName ? fileOf(stack, composeName, peeked.get(composeName)) : null;
  if (!composeName || !compose) throw new AppError('conflict', `the backup of '${stack}' has no compose file`, { params: { stack } });
  const env = fileOf(stack, ENV_FILE, peeked.get(ENV_FILE));
  stacks.judge(actor, stack, { compose: compose.text, env: env?.text ?? '' }, confirm);
  return { compose: { name: composeName, sha256: compose.sha256 }, env: env ? { sha256: env.sha256 } : null };
}

/** The bytes of a plain file, or null when there is none; a link or folder in its place is refused. */
function plainFile(path: string): Buffer | null {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return null;
  if (!st.isFile()) throw changed(path);
  return readFileSync(path);
}

const changed = (what: string) =>
  new AppError('conflict', `the archive changed after it was judged (${what}); nothing was moved, start the restore again`, { params: { path: what } });

/**
 * After extraction, before anything moves: the staged compose file and `.env` are exactly the bytes judged, and no
 * compose file compose would pick instead sits beside them. Otherwise the archive changed in between.
 */
export function checkStaged(stagedStack: string, judged: JudgedFiles): void {
  for (const name of COMPOSE_NAMES) {
    const bytes = plainFile(join(stagedStack, name));
    if (name === judged.compose.name) {
      if (!bytes || sha(bytes) !== judged.compose.sha256) throw changed(name);
      break;
    }
    if (bytes) throw changed(name);
  }
  const env = plainFile(join(stagedStack, ENV_FILE));
  if ((env ? sha(env) : null) !== (judged.env?.sha256 ?? null)) throw changed(ENV_FILE);
}

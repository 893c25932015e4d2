/**
 * A few small files of an archive's `stack/` branch, read without extracting anything: what a restore judges
 * before it starts (restore-judge.ts). The full checks stay with extraction (archive-read.ts); this read only
 * has to be bounded and honest about what it saw.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../core/errors.ts';
import { DEFAULT_LIMITS, headerProblem, splitName } from './archive-format.ts';
import { ArchiveStop, readEntries } from './archive-stream.ts';

/** A wanted entry as the archive holds it: a file's text and hash, or the other type it has (a link, a folder). */
export type PeekedEntry = { type: 'file'; text: string; sha256: string } | { type: 'other'; what: string };

/** The archive's writer puts the whole `stack/` branch first: reading stops at the first entry after it. */
class PastStack extends Error {}

const refused = (entry: string, reason: string) =>
  new AppError('archive_refused', `archive refused: ${entry ? `${entry}: ` : ''}${reason}; nothing was restored`, { params: { entry, reason, problems: 1 } });

/**
 * Reads `stack/<name>` for each of `names` (names directly in the branch). A file larger than `maxBytes`, an entry
 * named twice or an unreadable archive is refused (`archive_refused`). Entries the archive does not hold are absent
 * from the answer. Stops at the first entry outside `stack/`, so a large app data branch is not read twice; a
 * crafted archive that puts more of `stack/` later is caught when the extracted files are compared (checkStaged).
 */
export async function peekStackFiles(path: string, names: readonly string[], maxBytes: number): Promise<Map<string, PeekedEntry>> {
  const wanted = new Set(names);
  const found = new Map<string, PeekedEntry>();
  let inStack = false;
  try {
    await readEntries(path, DEFAULT_LIMITS, async ({ header, data }) => {
      const bad = headerProblem(header);
      if (bad) throw refused(header.name, bad);
      const parts = splitName(header.name);
      if (parts[0] !== 'stack') {
        if (inStack) throw new PastStack();
        return;
      }
      inStack = true;
      const name = parts[1];
      if (parts.length !== 2 || name === undefined || !wanted.has(name)) return;
      if (found.has(name)) throw refused(header.name, 'a name twice');
      if (header.type !== 'file') {
        found.set(name, { type: 'other', what: header.type === 'symlink' ? `a link to ${header.linkname ?? ''}` : `a ${header.type ?? 'strange'} entry` });
        return;
      }
      if (header.size > maxBytes) throw refused(header.name, `a file of ${header.size} bytes, more than the ${maxBytes} a restore reads before it starts`);
      const chunks: Buffer[] = [];
      for await (const c of data) chunks.push(c);
      const bytes = Buffer.concat(chunks);
      found.set(name, { type: 'file', text: bytes.toString('utf8'), sha256: createHash('sha256').update(bytes).digest('hex') });
    });
  } catch (e) {
    if (e instanceof ArchiveStop) throw refused(e.entry, e.reason);
    if (!(e instanceof PastStack)) throw e;
  }
  return found;
}

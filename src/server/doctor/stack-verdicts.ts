import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorCode } from '../../shared/doctor.ts';
import { isSafeName } from '../../shared/names.ts';
import { stackNames } from '../stacks/read/listing.ts';
import { composePath } from '../stacks/store/stack-files.ts';
import { repr } from './repr.ts';

export type NotAnApp = 'hidden' | 'invalid_name' | 'broken_link' | 'not_a_folder';

export interface StackVerdict {
  /** The entry's name as it is on disk. */
  name: string;
  /** Whether Kade lists it as an app: exactly the rule of stacks/read/listing.ts `stackNames`. */
  counts: boolean;
  /** Why it does not count; null when it does. */
  reason: NotAnApp | null;
  /** A link: an adopted app's reference to the user's own folder. */
  link: boolean;
  /** Counts, but the list shows it as "no compose file". */
  noCompose: boolean;
}

const WHY: Record<NotAnApp, string> = {
  hidden: 'hidden (the name starts with a dot)',
  invalid_name: 'not a valid app name (lower-case letters, digits, _ and -, at most 63, starting with a letter or digit)',
  broken_link: 'a link whose target does not exist',
  not_a_folder: 'not a folder (a file, or a link to one)',
};

/**
 * Every entry under LIBRARY_DIR with Kade's verdict on it. Whether an entry counts is decided by
 * `stackNames` itself (so the doctor can never disagree with the list); the reason is only the
 * explanation of a "no".
 */
export function stackVerdicts(libraryDir: string): StackVerdict[] {
  let entries: string[];
  try {
    entries = readdirSync(libraryDir).sort();
  } catch {
    return [];
  }
  const counted = new Set(stackNames(libraryDir));
  return entries.map((name) => {
    const path = join(libraryDir, name);
    let link = false;
    try {
      link = lstatSync(path).isSymbolicLink();
    } catch {
      // Gone since the listing: judged below as not a folder.
    }
    if (counted.has(name)) return { name, counts: true, reason: null, link, noCompose: composePath(path) === null };
    let reason: NotAnApp;
    if (name.startsWith('.')) reason = 'hidden';
    else if (!isSafeName(name)) reason = 'invalid_name';
    else if (link && !existsSync(path)) reason = 'broken_link';
    else reason = 'not_a_folder';
    return { name, counts: false, reason, link, noCompose: false };
  });
}

/** The same verdict as a code and params, for the interface to say in the user's language. */
export function verdictCode(v: StackVerdict): { code: DoctorCode; params: { name: string } } {
  const params = { name: repr(v.name) };
  if (v.counts) return { code: `verdict_${v.link ? 'adopted' : 'app'}${v.noCompose ? '_no_compose' : ''}`, params };
  if (v.link && v.reason === 'not_a_folder') return { code: 'verdict_link_not_a_folder', params };
  return { code: `verdict_${v.reason ?? 'not_a_folder'}`, params };
}

/** One line per entry, the name in repr form. */
export function verdictLine(v: StackVerdict): string {
  const what = v.link ? 'link' : 'folder';
  if (v.counts) return `${repr(v.name)}: an app (${v.link ? 'adopted, a link to its folder' : 'folder'})${v.noCompose ? ', but without a compose file' : ''}`;
  return `${repr(v.name)}: not an app: ${what === 'link' && v.reason === 'not_a_folder' ? 'a link to something that is not a folder' : WHY[v.reason ?? 'not_a_folder']}`;
}

import type { FilesVerdictT } from '../../../shared/stack-config.ts';
import { requireRole } from '../../core/authorize.ts';
import type { Actor } from '../../core/events.ts';
import { refusedFilesOf } from '../gate/file-verdicts.ts';
import type { StackContext } from './stack-context.ts';

/** What the gate says of an app's files now, and an admin's acceptance of files changed by hand. */
export function createFilesVerdict(c: StackContext) {
  const { store, gate } = c;
  return {
    /** The apps whose files compose would not run now, with why (the doctor lists them). */
    refusedFiles: () => refusedFilesOf(store, gate),

    /** GET /api/stacks/<name>/files: the refusal every compose run of the app would get now, or ok. */
    filesVerdict(actor: Actor, name: string): FilesVerdictT {
      requireRole(actor, 'viewer', "the state of an app's files");
      const loc = store.locate(name);
      const why = loc.composeFile ? gate.verdict(store.project(loc)) : null;
      return { ok: why === null, refusal: why ? { code: why.code, message: why.message, params: why.params } : null };
    },

    /** An admin's "accept the files as they are now" (adopted apps, folders edited by hand), judged first and audited. */
    acceptFiles(actor: Actor, name: string, confirm?: readonly string[]): { accepted: string } {
      requireRole(actor, 'admin', "accepting an app's files");
      const loc = store.locate(name);
      c.jobs.checkFree(name);
      gate.accept(store.project(store.locate(name)), actor, confirm);
      return { accepted: loc.name };
    },
  };
}

import { join } from 'node:path';
import type { Compose } from '../../engine/compose.ts';
import type { BindRules } from '../../settings/bind-rules.ts';
import type { PrivilegedPolicy } from '../policy/compose-policy.ts';
import { diskIO } from '../store/disk-io.ts';
import { createSeals } from '../store/file-seal.ts';
import { createStackDirs, type StackDirs } from '../store/stack-dir.ts';
import { type ComposeGate, createComposeGate } from './compose-gate.ts';

export interface RefusedFiles {
  name: string;
  message: string;
}

/** The apps whose files compose would not run now through `gate`, with why (the doctor lists them). */
export function refusedFilesOf(dirs: Pick<StackDirs, 'names' | 'find' | 'project'>, gate: Pick<ComposeGate, 'verdict'>): RefusedFiles[] {
  return dirs.names().flatMap((name) => {
    const loc = dirs.find(name);
    const why = loc?.composeFile ? gate.verdict(dirs.project(loc)) : null;
    return why ? [{ name, message: why.message }] : [];
  });
}

/**
 * The same list without a running Kade (`install.sh --doctor` through doctor-cli.ts): a gate of its own over the
 * seals in SVC_DATA, reading only; it never seals, accepts or runs anything.
 */
export function refusedFilesStandalone(d: {
  libraryDir: string;
  stateDir: string;
  binds: BindRules;
  compose: Compose;
  allowPrivileged: () => PrivilegedPolicy;
}): RefusedFiles[] {
  const io = diskIO();
  const gate = createComposeGate({
    compose: d.compose,
    io,
    seals: createSeals(io, join(d.stateDir, 'seals')),
    binds: d.binds,
    allowPrivileged: d.allowPrivileged,
    events: { emit: () => undefined, subscribe: () => () => undefined },
    clock: () => new Date(),
  });
  return refusedFilesOf(createStackDirs(io, d.libraryDir, d.stateDir), gate);
}

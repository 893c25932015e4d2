import { join } from 'node:path';
import type { Compose } from '../engine/compose.ts';
import type { BindRules } from '../settings/bind-rules.ts';
import { type ComposeGate, createComposeGate } from './compose-gate.ts';
import type { PrivilegedPolicy } from './compose-policy.ts';
import { createSeals } from './file-seal.ts';
import { stackNames } from './listing.ts';
import { createStackDirs, type StackDirs } from './stack-dir.ts';

export interface RefusedFiles {
  name: string;
  message: string;
}

/** The apps whose files compose would not run now through `gate`, with why (the doctor lists them). */
export function refusedFilesOf(libraryDir: string, dirs: StackDirs, gate: Pick<ComposeGate, 'verdict'>): RefusedFiles[] {
  return stackNames(libraryDir).flatMap((name) => {
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
  const gate = createComposeGate({
    compose: d.compose,
    seals: createSeals(join(d.stateDir, 'seals')),
    binds: d.binds,
    allowPrivileged: d.allowPrivileged,
    events: { emit: () => undefined, subscribe: () => () => undefined },
    clock: () => new Date(),
  });
  return refusedFilesOf(d.libraryDir, createStackDirs(d.libraryDir, d.stateDir), gate);
}

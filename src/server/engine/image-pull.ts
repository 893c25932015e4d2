import type Docker from 'dockerode';
import { errorMessage } from '../core/errors.ts';

/** The account for a registry, in the engine's own shape (X-Registry-Auth). */
export interface PullAuth {
  username: string;
  password: string;
  serveraddress: string;
}

interface PullEvent {
  status?: string;
  id?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * Pulls `ref` through the engine and waits for the end of its progress stream. A pull fails inside that stream
 * (an error event) as often as at its start, so both throw, with the engine's words. `onStep` gets the status lines
 * that say something (layer progress repeats by the hundred and is left out).
 */
export async function pullImage(docker: Docker, ref: string, opts: { auth?: PullAuth | undefined; onStep?: (line: string) => void } = {}): Promise<void> {
  const stream = (await docker.pull(ref, opts.auth ? { authconfig: opts.auth } : {})) as NodeJS.ReadableStream;
  let failure: string | null = null;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null) => (err ? reject(err) : resolve()),
      (e: PullEvent) => {
        const problem = e.error ?? e.errorDetail?.message;
        if (problem) failure ??= problem;
        else if (e.status && !/^(Downloading|Extracting|Waiting|Verifying Checksum)/.test(e.status)) opts.onStep?.(`${e.id ? `${e.id}: ` : ''}${e.status}`);
      },
    );
  }).catch((err: unknown) => {
    failure ??= errorMessage(err);
  });
  if (failure) throw new Error(failure);
}

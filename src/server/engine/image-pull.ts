import { createInterface } from 'node:readline';
import { AppError, errorMessage } from '../core/errors.ts';
import type { PullAuth, PullOptions } from './engine.ts';
import type { EngineApi, EngineFault } from './engine-api.ts';

interface PullEvent {
  status?: string;
  id?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/**
 * `name:tag` → the engine's `fromImage` and `tag`; a digest (`name@sha256:…`) is sent as the tag, which the engine
 * takes as a digest. Without either, `latest`: an empty tag would make the engine pull every tag of the repository.
 */
export function splitReference(ref: string): { fromImage: string; tag: string } {
  const at = ref.indexOf('@');
  if (at >= 0) return { fromImage: ref.slice(0, at), tag: ref.slice(at + 1) };
  const colon = ref.lastIndexOf(':');
  if (colon > ref.lastIndexOf('/')) return { fromImage: ref.slice(0, colon), tag: ref.slice(colon + 1) || 'latest' };
  return { fromImage: ref, tag: 'latest' };
}

/** X-Registry-Auth: the account as JSON in base64 with the URL alphabet and its padding, as the engine decodes it. */
export function registryAuthHeader(auth: PullAuth): string {
  return Buffer.from(JSON.stringify(auth)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** Pulls `ref` through the engine and waits for the end of its progress stream (see Engine.pullImage). */
export async function pullImage(api: EngineApi, ref: string, opts: PullOptions = {}): Promise<void> {
  let failure: string | null = null;
  let reached = true;
  try {
    const res = await api.stream('POST', '/images/create', {
      query: splitReference(ref),
      ...(opts.auth ? { headers: { 'X-Registry-Auth': registryAuthHeader(opts.auth) } } : {}),
    });
    for await (const line of createInterface({ input: res, crlfDelay: Number.POSITIVE_INFINITY })) {
      if (line.trim() === '') continue;
      let e: PullEvent;
      try {
        e = JSON.parse(line) as PullEvent;
      } catch {
        failure ??= `the engine's pull progress is not JSON: ${line.slice(0, 200)}`;
        continue;
      }
      const problem = e.error ?? e.errorDetail?.message;
      if (problem) failure ??= problem;
      else if (e.status && !/^(Downloading|Extracting|Waiting|Verifying Checksum)/.test(e.status)) opts.onStep?.(`${e.id ? `${e.id}: ` : ''}${e.status}`);
    }
    if (!res.complete) failure ??= 'the engine closed the connection before the pull ended';
  } catch (err) {
    reached = (err as EngineFault).statusCode !== undefined;
    failure ??= errorMessage(err);
  }
  if (failure === null) return;
  // The engine answered but the registry would not give the image (unknown, refused, unreachable).
  throw new AppError(reached ? 'registry_unreachable' : 'engine_unreachable', failure, { params: { image: ref } });
}

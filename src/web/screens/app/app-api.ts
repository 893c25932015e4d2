import type { JobT, StackDetailT } from '../../../shared/api.ts';
import type { FilesVerdictT, SnapshotT, StackCredentialsT } from '../../../shared/stack-config.ts';
import { request } from '../../api.ts';

export type { FilesVerdictT, SnapshotT, StackCredentialsT, StackDetailT };

/** The two files of a stack that can be edited as text. */
export type StackFile = 'compose' | 'env';

export interface FileSavedT {
  content: string;
  /** The id of the snapshot of the files as they were before this save. */
  snapshot: string;
}

export interface RestoredT {
  restored: string;
  /** The snapshot of the files as they were just before the restore, so a restore can be undone. */
  snapshot: string;
}

const base = (name: string) => `/api/stacks/${encodeURIComponent(name)}`;

export const getStackDetail = (name: string): Promise<StackDetailT> => request<StackDetailT>('GET', base(name));

/** A stack file's text; for `.env` the keys whose values the server masked (`reveal` asks for them in clear, audited). */
export async function getStackFile(name: string, file: StackFile, reveal = false): Promise<{ content: string; masked: string[] }> {
  const got = await request<{ content: string; masked?: string[] }>('GET', `${base(name)}/${file}${reveal ? '?reveal=1' : ''}`);
  return { content: got.content, masked: got.masked ?? [] };
}

export const putStackFile = (name: string, file: StackFile, content: string): Promise<FileSavedT> =>
  request<FileSavedT>('PUT', `${base(name)}/${file}`, { content });

/** `up -d`: recreates the services whose configuration changed. */
export async function applyStack(name: string): Promise<JobT> {
  return (await request<{ job: JobT }>('POST', `${base(name)}/start`)).job;
}

export const listSnapshots = (name: string): Promise<SnapshotT[]> => request<SnapshotT[]>('GET', `${base(name)}/snapshots`);

export const restoreSnapshot = (name: string, id: string): Promise<RestoredT> =>
  request<RestoredT>('POST', `${base(name)}/snapshots/${encodeURIComponent(id)}/restore`);

/** Written to the audit log on every call; only ever asked for on a click. */
export const getCredentials = (name: string): Promise<StackCredentialsT> => request<StackCredentialsT>('GET', `${base(name)}/credentials`);

/** Whether Kade runs the app's files as they are now, and the refusal every compose run would get if not. */
export const getFilesVerdict = (name: string): Promise<FilesVerdictT> => request<FilesVerdictT>('GET', `${base(name)}/files`);

/** An admin accepts the app's files as they are now (judged first; outside folders only with `confirm`); audited. */
export const acceptFiles = (name: string, confirm?: string[]): Promise<{ accepted: string }> =>
  request<{ accepted: string }>('POST', `${base(name)}/files/accept`, confirm ? { confirm_outside_paths: confirm } : {});

import type { RepoCacheStatusT, RepoT } from '../../shared/api.ts';

/** A repo's cache status as an installed app carries it (the apps list, the configure screen). */
export function repoCacheStatus(r: RepoT): RepoCacheStatusT {
  return { commit: r.status.commit, commit_date: r.status.commit_date, synced_at: r.status.synced_at, version: r.status.version, outdated: r.outdated };
}

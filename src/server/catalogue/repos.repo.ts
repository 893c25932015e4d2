import type { Db } from '../db/db.ts';
import type { SecretBox } from '../db/secret-box.ts';

export interface RepoRecord {
  id: string;
  name: string;
  url: string;
  branch: string;
  subdirectory: string;
  token: string | null;
  pinnedCommit: string | null;
  createdAt: string;
  syncedAt: string | null;
  commit: string | null;
  commitDate: string | null;
  cacheVersion: string | null;
  lastError: string | null;
}

/** The table's columns; those named as the record's fields have their types (the token sealed when a box is given). */
type Row = Pick<RepoRecord, 'id' | 'name' | 'url' | 'branch' | 'subdirectory' | 'token'> & {
  pinned_commit: string | null;
  created_at: string;
  synced_at: string | null;
  commit_sha: string | null;
  commit_date: string | null;
  cache_version: string | null;
  last_error: string | null;
};

const toRecord = (r: Row): RepoRecord => ({
  id: r.id,
  name: r.name,
  url: r.url,
  branch: r.branch,
  subdirectory: r.subdirectory,
  token: r.token,
  pinnedCommit: r.pinned_commit,
  createdAt: r.created_at,
  syncedAt: r.synced_at,
  commit: r.commit_sha,
  commitDate: r.commit_date,
  cacheVersion: r.cache_version,
  lastError: r.last_error,
});

/** Repo tokens are sealed with `box` in the database (a copied database alone reveals none). */
export function createReposRepo(db: Db, box: SecretBox | null = null) {
  const seal = <T extends { token: string | null }>(r: T): T => (box && r.token ? { ...r, token: box.seal(r.token) } : r);
  const open = (r: Row): RepoRecord => toRecord(box && r.token ? { ...r, token: box.open(r.token) } : r);
  const all = db.prepare<[], Row>('SELECT * FROM repos ORDER BY created_at, id');
  const one = db.prepare<[string], Row>('SELECT * FROM repos WHERE id = ?');
  const insert = db.prepare(
    'INSERT INTO repos (id, name, url, branch, subdirectory, token, pinned_commit, created_at) VALUES (@id, @name, @url, @branch, @subdirectory, @token, @pinnedCommit, @createdAt)',
  );
  const update = db.prepare(
    'UPDATE repos SET name = @name, url = @url, branch = @branch, subdirectory = @subdirectory, token = @token, pinned_commit = @pinnedCommit WHERE id = @id',
  );
  const synced = db.prepare('UPDATE repos SET synced_at = ?, commit_sha = ?, commit_date = ?, cache_version = ?, last_error = NULL WHERE id = ?');
  const failed = db.prepare('UPDATE repos SET last_error = ? WHERE id = ?');
  const del = db.prepare('DELETE FROM repos WHERE id = ?');
  // Bumped on every write, so readers can keep what they derive from the list while it stands still.
  let changes = 0;
  const wrote = <T>(v: T): T => {
    changes++;
    return v;
  };
  return {
    changes: () => changes,
    list: (): RepoRecord[] => all.all().map(open),
    get: (id: string): RepoRecord | null => {
      const r = one.get(id);
      return r ? open(r) : null;
    },
    insert: (r: Pick<RepoRecord, 'id' | 'name' | 'url' | 'branch' | 'subdirectory' | 'token' | 'pinnedCommit' | 'createdAt'>) =>
      void wrote(insert.run(seal(r))),
    update: (r: Pick<RepoRecord, 'id' | 'name' | 'url' | 'branch' | 'subdirectory' | 'token' | 'pinnedCommit'>) => void wrote(update.run(seal(r))),
    synced: (id: string, at: string, commit: string, date: string, version: string | null) => void wrote(synced.run(at, commit, date, version, id)),
    failed: (id: string, error: string) => void wrote(failed.run(error, id)),
    delete: (id: string): number => wrote(del.run(id).changes),
  };
}

export type ReposRepo = ReturnType<typeof createReposRepo>;

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import Database from 'better-sqlite3';
import { ApiClient } from './client.ts';
import { startTestServer, type TestServer } from './server.ts';

/** A Kade in folders of its own, so it can be restarted on the same state; each part exists once `before` has run. */
export interface SettingsServer {
  readonly server: TestServer;
  /** Logged in as the first account, an admin. */
  readonly admin: ApiClient;
  /** An empty folder outside BASE_DIR, for the paths Kade must refuse or accept there. */
  readonly outside: string;
  /** Stops Kade and starts it again on the same folders, logged in again. */
  restart(): Promise<void>;
  /** Kade's own database, for what HTTP cannot show: stored rows of old versions, the audit detail. */
  withDb<T>(fn: (db: Database.Database) => T): T;
}

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is used before the settings server started`);
  return value;
}

/** Registers the file's hooks that start and remove the server and its folders. */
export function useSettingsServer(): SettingsServer {
  let root: string | undefined;
  let server: TestServer | undefined;
  let admin: ApiClient | undefined;
  let outside: string | undefined;
  const start = async (stateDir: string, baseDir: string) => {
    server = await startTestServer({ stateDir, baseDir });
    admin = new ApiClient(server.url);
    await admin.loginAs();
  };
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'kade-settings-'));
    await start(join(root, 'state'), join(root, 'base'));
    outside = mkdtempSync(join(tmpdir(), 'kade-outside-'));
  });
  after(async () => {
    await started(server, 'server').close();
    rmSync(started(outside, 'outside'), { recursive: true, force: true });
    rmSync(started(root, 'root'), { recursive: true, force: true });
  });
  const suite: SettingsServer = {
    get server() {
      return started(server, 'server');
    },
    get admin() {
      return started(admin, 'admin');
    },
    get outside() {
      return started(outside, 'outside');
    },
    async restart() {
      const { stateDir, baseDir } = suite.server;
      await suite.server.close();
      await start(stateDir, baseDir);
    },
    withDb(fn) {
      const db = new Database(join(suite.server.stateDir, 'kade.db'));
      try {
        return fn(db);
      } finally {
        db.close();
      }
    },
  };
  return suite;
}

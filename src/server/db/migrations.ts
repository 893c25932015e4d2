/** Numbered schema steps; each runs once, in order, inside a transaction. Never edit a shipped step. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE users (
     name TEXT PRIMARY KEY,
     password_hash TEXT NOT NULL,
     role TEXT NOT NULL CHECK (role IN ('admin','operator','viewer')),
     created_at TEXT NOT NULL,
     last_login_at TEXT
   );
   CREATE TABLE sessions (
     id_hash TEXT PRIMARY KEY,
     user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
     csrf TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL
   );
   CREATE TABLE audit (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     at TEXT NOT NULL,
     user_name TEXT,
     ip TEXT,
     source TEXT NOT NULL,
     action TEXT NOT NULL,
     target TEXT,
     status TEXT NOT NULL,
     detail TEXT
   );
   CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     stack TEXT,
     state TEXT NOT NULL,
     progress REAL NOT NULL DEFAULT 0,
     started_at TEXT NOT NULL,
     ended_at TEXT,
     user_name TEXT,
     ip TEXT,
     error TEXT
   );
   CREATE INDEX jobs_started ON jobs(started_at);
   CREATE TABLE repos (
     id TEXT PRIMARY KEY,
     name TEXT NOT NULL,
     url TEXT NOT NULL,
     branch TEXT NOT NULL,
     subdirectory TEXT NOT NULL,
     token TEXT,
     pinned_commit TEXT,
     created_at TEXT NOT NULL,
     synced_at TEXT,
     commit_sha TEXT,
     commit_date TEXT,
     cache_version TEXT,
     last_error TEXT
   );
   CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // Server-side secrets of the auth module (the key that derives CSRF tokens of single-sign-on users).
  `CREATE TABLE auth_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // Audit log: indexes for newest-first paging and the filters; the action names of rows written
  // before the mapping table (raw event types) become the stable verbs the interface translates.
  `CREATE INDEX audit_at ON audit(at, id);
   CREATE INDEX audit_source_at ON audit(source, at);
   CREATE INDEX audit_action_at ON audit(action, at);
   CREATE INDEX audit_user_at ON audit(user_name, at);
   UPDATE audit SET action = CASE action
     WHEN 'user.login' THEN 'login'
     WHEN 'user.created' THEN 'add'
     WHEN 'repo.added' THEN 'add'
     WHEN 'repo.deleted' THEN 'delete'
     WHEN 'stack.installed' THEN 'install'
     WHEN 'stack.start' THEN 'start'
     WHEN 'stack.stop' THEN 'stop'
     WHEN 'stack.restart' THEN 'restart'
     WHEN 'stack.deleted' THEN 'delete'
     WHEN 'job.failed' THEN 'job_failed'
     ELSE action END;`,
  // Shared networks: the address plan of each network Kade created (the names are the SHARED_NETWORK and APP_NETWORKS settings).
  `CREATE TABLE networks (
     name TEXT PRIMARY KEY,
     driver TEXT NOT NULL,
     subnet TEXT,
     gateway TEXT,
     ip_range TEXT,
     iface TEXT,
     created_at TEXT NOT NULL
   );`,
  // Notifications: channels (secrets sealed), which kinds go where, a short delivery history per channel, and the
  // last state or round per kind and subject, so a restart neither repeats nor loses a message.
  `CREATE TABLE notify_channels (
     id TEXT PRIMARY KEY,
     position INTEGER NOT NULL,
     kind TEXT NOT NULL,
     enabled INTEGER NOT NULL,
     config TEXT NOT NULL,
     token TEXT,
     password TEXT
   );
   CREATE TABLE notify_rules (kind TEXT NOT NULL, channel_id TEXT NOT NULL, PRIMARY KEY (kind, channel_id));
   CREATE TABLE notify_history (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     channel_id TEXT NOT NULL,
     at TEXT NOT NULL,
     kind TEXT NOT NULL,
     ok INTEGER NOT NULL,
     status INTEGER,
     error TEXT
   );
   CREATE INDEX notify_history_channel ON notify_history(channel_id, id);
   CREATE TABLE notify_state (kind TEXT NOT NULL, subject TEXT NOT NULL, value TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (kind, subject));`,
  // Known devices: a browser that signed in to an account gets a long-lived cookie (only its hash is stored) that
  // earns it a login budget of its own, so guesses from elsewhere never keep the owner out (issue 23).
  `CREATE TABLE known_devices (
     id_hash TEXT PRIMARY KEY,
     user_name TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
     created_at TEXT NOT NULL,
     used_at TEXT NOT NULL
   );
   CREATE INDEX known_devices_user ON known_devices(user_name, used_at);`,
  // The last known update state of each app and when it was learned, so the badge and its age survive a restart (issue 24).
  `CREATE TABLE update_results (stack TEXT PRIMARY KEY, state TEXT NOT NULL, checked_at TEXT NOT NULL);`,
];

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { type Db, openDb } from '../db/db.ts';
import { MIGRATIONS } from '../db/migrations.ts';
import { type AuditRepo, type AuditRow, createAuditRepo, escapeLike } from './audit.repo.ts';

let dir: string;
let db: Db;
let repo: AuditRepo;

const row = (over: Partial<AuditRow>): AuditRow => ({
  at: '2024-05-01T10:00:00.000Z',
  user: 'ann',
  ip: '10.0.0.2',
  source: 'stacks',
  action: 'start',
  target: 'web',
  status: 'ok',
  detail: null,
  ...over,
});

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kade-audit-'));
  db = openDb(join(dir, 'kade.db'));
  repo = createAuditRepo(db);
  repo.insert(row({ at: '2024-05-01T10:00:00.000Z' }));
  repo.insert(row({ at: '2024-05-02T10:00:00.000Z', action: 'stop' }));
  repo.insert(row({ at: '2024-05-03T10:00:00.000Z', user: 'bob', source: 'catalogue', action: 'edit', target: 'basic' }));
  repo.insert(row({ at: '2024-05-04T10:00:00.000Z', user: null, source: 'auth', action: 'login', target: 'mallory', status: 'failed', ip: '10.9.9.9' }));
  repo.insert(row({ at: '2024-05-05T10:00:00.000Z', target: '100%_done', detail: { note: 'a_b' } }));
});
after(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const page = { limit: 50, offset: 0 };
const targets = (f: Parameters<AuditRepo['search']>[0]) => repo.search(f, page).entries.map((e) => e.target);

test('newest first, with paging and a total', () => {
  const all = repo.search({}, page);
  assert.equal(all.total, 5);
  assert.deepEqual(
    all.entries.map((e) => e.at.slice(0, 10)),
    ['2024-05-05', '2024-05-04', '2024-05-03', '2024-05-02', '2024-05-01'],
  );
  const second = repo.search({}, { limit: 2, offset: 2 });
  assert.equal(second.total, 5);
  assert.deepEqual(
    second.entries.map((e) => e.target),
    ['basic', 'web'],
  );
});

test('filters combine; the period is from-inclusive, to-exclusive', () => {
  assert.deepEqual(targets({ source: 'catalogue' }), ['basic']);
  assert.deepEqual(targets({ status: 'failed' }), ['mallory']);
  assert.deepEqual(targets({ user: 'ann', action: 'stop' }), ['web']);
  assert.deepEqual(targets({ from: '2024-05-02T10:00:00.000Z', to: '2024-05-04T10:00:00.000Z' }), ['basic', 'web']);
});

test('free text matches user, ip, target, action and detail, case-insensitively', () => {
  assert.deepEqual(targets({ text: 'BOB' }), ['basic']);
  assert.deepEqual(targets({ text: '10.9.9' }), ['mallory']);
  assert.deepEqual(targets({ text: 'logi' }), ['mallory']);
  assert.deepEqual(targets({ text: 'a_b' }), ['100%_done']);
});

test('LIKE wildcards in the text match only themselves; quotes are plain data', () => {
  assert.equal(escapeLike('50%_\\'), '50\\%\\_\\\\');
  assert.deepEqual(targets({ text: '%' }), ['100%_done']);
  assert.deepEqual(targets({ text: '_' }), ['100%_done']);
  assert.deepEqual(targets({ text: "' OR 1=1 --" }), []);
  assert.deepEqual(targets({ source: "x' OR '1'='1" }), []);
});

test('a facet counts over the other filters but not its own; null users are not a value', () => {
  const f = { source: 'stacks' };
  assert.deepEqual(repo.facet(f, 'source'), [
    { value: 'stacks', count: 3 },
    { value: 'auth', count: 1 },
    { value: 'catalogue', count: 1 },
  ]);
  assert.deepEqual(repo.facet(f, 'action'), [
    { value: 'start', count: 2 },
    { value: 'stop', count: 1 },
  ]);
  assert.deepEqual(repo.facet({}, 'user'), [
    { value: 'ann', count: 3 },
    { value: 'bob', count: 1 },
  ]);
  assert.equal(repo.count(), 5);
});

test('the migration gave the filters and the paging their indexes', () => {
  const plan = db.prepare("EXPLAIN QUERY PLAN SELECT * FROM audit WHERE action = 'start' ORDER BY at DESC").all() as { detail: string }[];
  assert.match(plan.map((p) => p.detail).join('\n'), /audit_action_at/);
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit'").all() as { name: string }[]).map((r) => r.name);
  for (const n of ['audit_at', 'audit_source_at', 'audit_action_at', 'audit_user_at']) assert.ok(names.includes(n), n);
});

test('rows written before the mapping table get the stable action names', () => {
  const file = join(dir, 'old.db');
  const step = MIGRATIONS.findIndex((m) => m.includes('audit_action_at'));
  const old = new Database(file);
  for (const m of MIGRATIONS.slice(0, step)) old.exec(m);
  old.pragma(`user_version = ${step}`);
  const ins = old.prepare("INSERT INTO audit (at, source, action, status) VALUES ('2024-01-01T00:00:00.000Z', 'x', ?, 'ok')");
  for (const a of ['user.login', 'stack.installed', 'edit', 'job.failed', 'something.else']) ins.run(a);
  old.close();
  const upgraded = openDb(file);
  const actions = (upgraded.prepare('SELECT action FROM audit ORDER BY id').all() as { action: string }[]).map((r) => r.action);
  upgraded.close();
  assert.deepEqual(actions, ['login', 'install', 'edit', 'job_failed', 'something.else']);
});

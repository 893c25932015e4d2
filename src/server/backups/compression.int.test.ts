import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { backupSettingsIn, backupStacksIn } from '../../../test/helpers/backups-kit.ts';
import { jobsIn } from '../../../test/helpers/jobs-kit.ts';
import { createFakeEngine } from '../engine/fake-engine.ts';
import type { Compression } from './archive.ts';
import { archiveIO } from './archive-io.ts';
import { createBackupsService } from './backups.service.ts';

// BACKUP_COMPRESSION through the backup service with the real archive format on real files: the setting read
// at each backup names the file (.tar.gz or .tar.zst) and compresses it; backups of both kinds live side by
// side in BACKUP_DIR and are listed, verified, downloaded, restored, pruned and copied offsite alike.
// The apps and compose are stand-ins (no containers): this is about the files.
const hasZstd = spawnSync('zstd', ['--version']).status === 0;
const skip = hasZstd ? false : 'the zstd program is not installed (Debian package zstd)';
const admin = { user: 'admin', role: 'admin' as const, ip: '127.0.0.1' };
const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function setup(opts: { retention?: { count: number; days: number }; offsite?: string } = {}) {
  const root = mkdtempSync(join(tmpdir(), 'kade-bkz-'));
  roots.push(root);
  const libraryDir = join(root, 'stacks');
  const dataDir = join(root, 'appdata');
  const backupDir = join(root, 'backups');
  const stackDir = join(libraryDir, 'app');
  mkdirSync(stackDir, { recursive: true });
  mkdirSync(join(dataDir, 'app'), { recursive: true });
  mkdirSync(join(root, 'jobs'));
  writeFileSync(join(stackDir, 'docker-compose.yml'), 'services:\n  web:\n    image: kade-test/busybox:1\n');
  writeFileSync(join(stackDir, '.env'), 'GREETING=first\n');
  writeFileSync(join(dataDir, 'app', 'notes.txt'), 'the first notes\n');
  const settings = { compression: 'gzip' as Compression };
  let now = new Date('2026-11-26T10:00:00.000Z');
  const { events, jobs } = jobsIn(root, () => now);
  const project = { name: 'app', dir: stackDir, file: join(stackDir, 'docker-compose.yml') };
  const service = createBackupsService({
    stacks: backupStacksIn(root, stackDir, {
      locate: () => ({ dir: stackDir, adopted: false, project: existsSync(stackDir) ? project : null, libraryPath: stackDir }),
    }),
    archive: archiveIO,
    settings: backupSettingsIn(root, {
      compression: () => settings.compression,
      offsiteDir: () => opts.offsite ?? '',
      retention: () => opts.retention ?? { count: 0, days: 0 },
    }),
    engine: createFakeEngine(),
    jobs,
    events,
    clock: () => now,
  });
  const done = async (job: { id: string }) => {
    const end = await jobs.wait(job.id);
    assert.equal(end.state, 'succeeded', end.error ?? '');
  };
  /** One backup at the given time with the given compression; its id. */
  const backup = async (kind: Compression, at: string): Promise<string> => {
    settings.compression = kind;
    now = new Date(at);
    const before = new Set(service.list(admin).map((b) => b.id));
    await done(service.create(admin, 'app'));
    const made = service.list(admin).find((b) => !before.has(b.id));
    assert.ok(made, 'the new backup is listed');
    return made.id;
  };
  return { service, backup, done, backupDir, stackDir, dataDir };
}

test('with BACKUP_COMPRESSION=zstd a backup is a .tar.zst that is listed, verified, downloaded under its name and restored', { skip }, async () => {
  const s = setup();
  const id = await s.backup('zstd', '2026-11-26T10:00:00.000Z');
  assert.equal(id, 'app-20261126-100000', 'the id carries no extension');
  assert.deepEqual(readdirSync(s.backupDir).sort(), [`${id}.tar.zst`, `${id}.tar.zst.json`]);
  assert.deepEqual(readFileSync(join(s.backupDir, `${id}.tar.zst`)).subarray(0, 4), Buffer.from([0x28, 0xb5, 0x2f, 0xfd]), 'zstd magic bytes');
  const [listed] = s.service.list(admin);
  assert.equal(listed?.id, id);
  assert.equal(listed?.file, `${id}.tar.zst`, 'the list names the file, which the download link uses');
  assert.equal(listed?.verified, true, 'verified right after it was written');
  assert.equal(listed?.size, readFileSync(join(s.backupDir, `${id}.tar.zst`)).length);

  await s.done(s.service.verify(admin, id));
  assert.equal(s.service.get(id).verified, true);

  const dl = s.service.download(admin, id);
  assert.equal(dl.name, `${id}.tar.zst`);
  assert.equal(dl.type, 'application/zstd');
  const chunks: Buffer[] = [];
  for await (const c of dl.stream) chunks.push(Buffer.from(c as Buffer));
  assert.deepEqual(Buffer.concat(chunks), readFileSync(join(s.backupDir, `${id}.tar.zst`)));

  writeFileSync(join(s.stackDir, '.env'), 'GREETING=changed\n');
  writeFileSync(join(s.dataDir, 'app', 'notes.txt'), 'overwritten\n');
  await s.done(await s.service.restore(admin, id));
  assert.equal(readFileSync(join(s.stackDir, '.env'), 'utf8'), 'GREETING=first\n');
  assert.equal(readFileSync(join(s.dataDir, 'app', 'notes.txt'), 'utf8'), 'the first notes\n');
});

test('a change of the setting applies to the next backup; gzip and zstd backups are listed, downloaded and deleted side by side', { skip }, async () => {
  const s = setup();
  const gz = await s.backup('gzip', '2026-11-26T10:00:00.000Z');
  const zst = await s.backup('zstd', '2026-11-26T10:00:00.000Z');
  assert.equal(zst, `${gz}-2`, 'in the same second, a zstd backup does not take the id of a gzip one');
  assert.deepEqual(readdirSync(s.backupDir).sort(), [`${gz}.tar.gz`, `${gz}.tar.gz.json`, `${zst}.tar.zst`, `${zst}.tar.zst.json`].sort());
  assert.deepEqual(readFileSync(join(s.backupDir, `${gz}.tar.gz`)).subarray(0, 2), Buffer.from([0x1f, 0x8b]), 'gzip magic bytes');
  assert.deepEqual(
    s.service.list(admin).map((b) => [b.id, b.file, b.verified]),
    [
      [zst, `${zst}.tar.zst`, true],
      [gz, `${gz}.tar.gz`, true],
    ],
  );
  const old = s.service.download(admin, gz);
  assert.deepEqual([old.name, old.type], [`${gz}.tar.gz`, 'application/gzip']);
  (old.stream as NodeJS.ReadableStream & { destroy(): void }).destroy();
  // The old gzip backup still restores after the switch to zstd.
  writeFileSync(join(s.stackDir, '.env'), 'GREETING=changed\n');
  await s.done(await s.service.restore(admin, gz));
  assert.equal(readFileSync(join(s.stackDir, '.env'), 'utf8'), 'GREETING=first\n');

  s.service.remove(admin, gz);
  assert.deepEqual(readdirSync(s.backupDir).sort(), [`${zst}.tar.zst`, `${zst}.tar.zst.json`]);
  assert.throws(
    () => s.service.get(gz),
    (e: Error & { code?: string }) => e.code === 'not_found',
  );
});

test('retention counts backups of both kinds together; the offsite copy keeps each one’s own name', { skip }, async () => {
  const offsite = mkdtempSync(join(tmpdir(), 'kade-bkz-off-'));
  roots.push(offsite);
  const s = setup({ retention: { count: 2, days: 0 }, offsite });
  const a = await s.backup('gzip', '2026-11-20T03:00:00.000Z');
  const b = await s.backup('zstd', '2026-11-21T03:00:00.000Z');
  assert.deepEqual(
    s.service.list(admin).map((x) => x.id),
    [b, a],
  );
  const c = await s.backup('gzip', '2026-11-22T03:00:00.000Z');
  assert.deepEqual(
    s.service.list(admin).map((x) => x.id),
    [c, b],
    'the oldest (gzip) went: two kept, of both kinds',
  );
  const d = await s.backup('gzip', '2026-11-23T03:00:00.000Z');
  assert.deepEqual(
    s.service.list(admin).map((x) => x.id),
    [d, c],
    'the zstd one went in its turn',
  );
  assert.deepEqual(readdirSync(s.backupDir).sort(), [`${c}.tar.gz`, `${c}.tar.gz.json`, `${d}.tar.gz`, `${d}.tar.gz.json`]);
  assert.ok(existsSync(join(offsite, `${b}.tar.zst`)) && existsSync(join(offsite, `${b}.tar.zst.json`)));
  assert.ok(existsSync(join(offsite, `${a}.tar.gz`)));
});

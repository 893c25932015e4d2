import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createGunzip, createGzip } from 'node:zlib';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import { isAppError } from '../core/errors.ts';
import { backupName, checkCompressed, extractArchive, inspectArchive, MANIFEST_NAME, verifyArchive, writeArchive } from './archive.ts';

// The archive format on real files: what goes in comes out (contents, modes, links, owners), large files
// are streamed, what cannot be backed up is listed, verification catches every kind of damage, and a
// failed backup leaves no file behind.
const root = mkdtempSync(join(tmpdir(), 'kade-archive-'));
chmodSync(root, 0o755);
after(() => rmSync(root, { recursive: true, force: true }));
const isRoot = process.getuid?.() === 0;
let n = 0;
const fresh = (name: string) => {
  const d = join(root, `${name}-${++n}`);
  mkdirSync(d, { mode: 0o755 });
  chmodSync(d, 0o755);
  return d;
};
const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex');

/** A stack folder and an app data folder with nested folders, modes and a link inside. */
function sources() {
  const base = fresh('src');
  const stack = join(base, 'stack');
  const data = join(base, 'data');
  mkdirSync(join(stack, 'conf', 'deep'), { recursive: true });
  writeFileSync(join(stack, 'docker-compose.yml'), 'services:\n  web:\n    image: nginx\n');
  writeFileSync(join(stack, '.env'), 'PASSWORD=s3cret\n', { mode: 0o600 });
  chmodSync(join(stack, '.env'), 0o600);
  writeFileSync(join(stack, 'conf', 'deep', 'app.ini'), '[a]\nb=c\n');
  writeFileSync(join(stack, 'run.sh'), '#!/bin/sh\necho hi\n');
  chmodSync(join(stack, 'run.sh'), 0o750);
  chmodSync(join(stack, 'conf'), 0o710);
  symlinkSync('conf/deep/app.ini', join(stack, 'current.ini'));
  symlinkSync('../..', join(stack, 'conf', 'deep', 'up')); // stays inside: deep/../.. is the stack folder
  mkdirSync(join(data, 'db'), { recursive: true });
  writeFileSync(join(data, 'db', 'pg.bin'), Buffer.from([0, 1, 2, 255, 254]));
  writeFileSync(join(data, 'empty'), '');
  return { stack, data };
}

async function rewrite(src: string, dest: string, edit: (name: string, body: Buffer) => Buffer | null, extra: { name: string; body: string }[] = []) {
  const ex = tarExtract();
  const pk = tarPack();
  const out = pipeline(Readable.from(pk), createGzip(), createWriteStream(dest));
  const read = pipeline(createReadStream(src), createGunzip(), ex);
  for await (const entry of ex) {
    const parts: Buffer[] = [];
    for await (const c of entry) parts.push(c as Buffer);
    const body = edit(entry.header.name, Buffer.concat(parts));
    if (entry.header.name === MANIFEST_NAME) for (const e of extra) pk.entry({ name: e.name, type: 'file', mode: 0o644 }, e.body);
    if (body !== null) pk.entry({ ...entry.header, size: body.length }, body);
  }
  await read;
  pk.finalize();
  await out;
}

test('round trip: files, nested folders, links inside, modes, app data and dumps come back as they were; the manifest is last and beside', async () => {
  const { stack, data } = sources();
  const out = fresh('out');
  const dest = join(out, 'app-20261125-100000.tar.gz');
  const m = await writeArchive({
    dest,
    branches: { stack, appdata: data, dumps: [{ name: 'db.sql', stream: () => Readable.from(['CREATE TABLE t (a int);\n', 'INSERT INTO t VALUES (1);\n']) }] },
    meta: { stack: 'app', reason: 'manual' },
  });
  assert.deepEqual(m.skipped, []);
  assert.deepEqual(m.meta, { stack: 'app', reason: 'manual' });
  assert.equal(statSync(dest).mode & 0o777, 0o600);
  assert.equal(statSync(`${dest}.json`).mode & 0o777, 0o600);
  assert.deepEqual(JSON.parse(readFileSync(`${dest}.json`, 'utf8')), m);
  assert.deepEqual(readdirSync(out).sort(), ['app-20261125-100000.tar.gz', 'app-20261125-100000.tar.gz.json']);
  const env = m.entries.find((e) => e.path === 'stack/.env');
  assert.equal(env?.sha256, sha(join(stack, '.env')));
  assert.equal(env?.mode, 0o600);
  assert.deepEqual(m.owners.stack, { uid: statSync(stack).uid, gid: statSync(stack).gid });

  const names: string[] = [];
  await pipeline(createReadStream(dest), createGunzip(), async (src) => {
    const ex = tarExtract();
    const done = pipeline(src, ex);
    for await (const e of ex) {
      names.push(e.header.name);
      e.resume();
    }
    await done;
  });
  assert.equal(names.at(-1), MANIFEST_NAME);

  const v = await verifyArchive(dest);
  assert.deepEqual(v.problems, []);
  assert.equal(v.ok, true);

  const target = join(fresh('restore'), 'staging');
  const x = await extractArchive(dest, target);
  assert.deepEqual(x.dumps, ['db.sql']);
  assert.deepEqual(x.stack, { files: 4, folders: 3, links: 2, bytes: m.entries.filter((e) => e.path.startsWith('stack/')).reduce((a, e) => a + e.size, 0) });
  assert.equal(x.appdata?.files, 2);
  assert.equal(statSync(target).mode & 0o777, 0o700);
  for (const f of ['docker-compose.yml', '.env', 'run.sh', 'conf/deep/app.ini']) {
    assert.equal(sha(join(target, 'stack', f)), sha(join(stack, f)), f);
    assert.equal(statSync(join(target, 'stack', f)).mode & 0o7777, statSync(join(stack, f)).mode & 0o7777, `mode of ${f}`);
  }
  assert.equal(statSync(join(target, 'stack', 'conf')).mode & 0o7777, 0o710);
  assert.equal(readlinkSync(join(target, 'stack', 'current.ini')), 'conf/deep/app.ini');
  assert.equal(readFileSync(join(target, 'stack', 'current.ini'), 'utf8'), '[a]\nb=c\n');
  assert.equal(readlinkSync(join(target, 'stack', 'conf', 'deep', 'up')), '../..');
  assert.deepEqual(readFileSync(join(target, 'appdata', 'db', 'pg.bin')), Buffer.from([0, 1, 2, 255, 254]));
  assert.equal(readFileSync(join(target, 'appdata', 'empty'), 'utf8'), '');
  assert.equal(readFileSync(join(target, 'dumps', 'db.sql'), 'utf8'), 'CREATE TABLE t (a int);\nINSERT INTO t VALUES (1);\n');
});

test('owners and groups are recorded and put back (when this process may set them)', {
  skip: isRoot ? false : 'needs root to give files another owner',
}, async () => {
  const { stack } = sources();
  chownSync(join(stack, 'docker-compose.yml'), 1234, 2345);
  chownSync(join(stack, 'conf'), 999, 999);
  const dest = join(fresh('out'), 'o.tar.gz');
  const m = await writeArchive({ dest, branches: { stack }, meta: {} });
  assert.deepEqual(
    m.entries.filter((e) => e.path === 'stack/docker-compose.yml').map((e) => [e.uid, e.gid]),
    [[1234, 2345]],
  );
  const target = join(fresh('restore'), 't');
  const x = await extractArchive(dest, target);
  assert.equal(x.ownersKept, true);
  const st = statSync(join(target, 'stack', 'docker-compose.yml'));
  assert.deepEqual([st.uid, st.gid], [1234, 2345]);
  assert.equal(statSync(join(target, 'stack', 'conf')).uid, 999);
});

test('a 50 MB file is streamed, never held in memory whole, and comes back byte for byte', async () => {
  const base = fresh('big');
  const stack = join(base, 'stack');
  mkdirSync(stack);
  const big = join(stack, 'big.bin');
  const fd = openSync(big, 'w');
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < 50; i++) {
    for (let j = 0; j < block.length; j += 4) block.writeUInt32LE((i * 2654435761 + j * 40503) >>> 0, j);
    writeSync(fd, block);
  }
  closeSync(fd);
  const size = statSync(big).size;
  // What stays reachable counts, not garbage not yet collected: a collection before each sample.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const used = () => {
    gc();
    const u = process.memoryUsage();
    return u.heapUsed + u.arrayBuffers;
  };
  const before = used();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, used());
  }, 250);
  const dest = join(fresh('out'), 'big.tar.gz');
  try {
    await writeArchive({ dest, branches: { stack }, meta: {} });
    peak = Math.max(peak, used());
  } finally {
    clearInterval(timer);
  }
  // Held whole, the file alone would add its 50 MB; streamed, only the pipeline's buffers are in flight (a few MB,
  // up to ~27 MB measured when the machine is busy and chunks queue up in the MiB buffers): 80 % of the file's size
  // tells the two apart without flaking.
  assert.ok(peak - before < size * 0.8, `memory grew by ${peak - before} bytes while writing a ${size}-byte file`);
  assert.equal((await verifyArchive(dest)).ok, true);
  const target = join(fresh('restore'), 't');
  await extractArchive(dest, target);
  assert.equal(sha(join(target, 'stack', 'big.bin')), sha(big));
});

test('a FIFO, a socket, links that leave their folder and an unreadable file are skipped and listed; the rest is kept', async () => {
  const base = fresh('skip');
  const stack = join(base, 'stack');
  mkdirSync(join(stack, 'sub'), { recursive: true });
  chmodSync(stack, 0o755);
  writeFileSync(join(stack, 'ok.txt'), 'fine');
  writeFileSync(join(stack, 'secret.key'), 'nobody may read this');
  chmodSync(join(stack, 'secret.key'), 0o000);
  assert.equal(spawnSync('mkfifo', [join(stack, 'pipe')]).status, 0);
  const sock = createServer();
  await new Promise<void>((resolve) => sock.listen(join(stack, 'app.sock'), resolve));
  symlinkSync('/etc/passwd', join(stack, 'passwd'));
  symlinkSync('../../outside', join(stack, 'sub', 'escape'));
  writeFileSync(join(stack, 'suid'), 'x');
  chmodSync(join(stack, 'suid'), 0o4755);
  const out = fresh('out');
  const dest = join(out, 's.tar.gz');
  const seen: string[] = [];
  // Root reads any file: to meet a file that cannot be read, the writer runs as nobody for this call.
  if (isRoot) {
    chmodSync(out, 0o777);
    process.setegid?.(65534);
    process.seteuid?.(65534);
  }
  let m: Awaited<ReturnType<typeof writeArchive>>;
  try {
    m = await writeArchive({ dest, branches: { stack }, meta: {}, onSkip: (p) => seen.push(p) });
  } finally {
    if (isRoot) {
      process.seteuid?.(0);
      process.setegid?.(0);
    }
    await new Promise((resolve) => sock.close(resolve));
  }
  const skipped = Object.fromEntries(m.skipped.map((s) => [s.path, s.reason]));
  assert.match(skipped['stack/secret.key'] ?? '', /cannot be read \(EACCES\)/);
  assert.match(skipped['stack/pipe'] ?? '', /FIFO/);
  assert.match(skipped['stack/app.sock'] ?? '', /socket/);
  assert.match(skipped['stack/passwd'] ?? '', /outside the stack folder/);
  assert.match(skipped['stack/sub/escape'] ?? '', /outside the stack folder/);
  assert.deepEqual(seen.sort(), Object.keys(skipped).sort());
  assert.deepEqual(JSON.parse(readFileSync(`${dest}.json`, 'utf8')).skipped, m.skipped);
  assert.deepEqual(m.stripped, ['stack/suid']);
  assert.equal(m.entries.find((e) => e.path === 'stack/suid')?.mode, 0o755);
  assert.ok(m.entries.some((e) => e.path === 'stack/ok.txt'));
  const target = join(fresh('restore'), 't');
  await extractArchive(dest, target);
  assert.equal(readFileSync(join(target, 'stack', 'ok.txt'), 'utf8'), 'fine');
  assert.equal(existsSync(join(target, 'stack', 'secret.key')), false);
});

test('backups in the same second get their own names, and an existing archive is never replaced', async () => {
  const taken = new Set<string>();
  const at = new Date('2026-11-25T03:15:00.400Z');
  const names = [1, 2, 3].map(() => {
    const name = backupName('app', at, (x) => taken.has(x));
    taken.add(name);
    return name;
  });
  assert.deepEqual(names, ['app-20261125-031500.tar.gz', 'app-20261125-031500-2.tar.gz', 'app-20261125-031500-3.tar.gz']);
  assert.equal(
    backupName('app', new Date('2026-11-25T03:15:01.000Z'), (x) => taken.has(x)),
    'app-20261125-031501.tar.gz',
  );

  const { stack } = sources();
  const out = fresh('out');
  writeFileSync(join(out, names[0] as string), 'an older backup');
  await assert.rejects(writeArchive({ dest: join(out, names[0] as string), branches: { stack }, meta: {} }), (e) => isAppError(e) && e.code === 'conflict');
  assert.equal(readFileSync(join(out, names[0] as string), 'utf8'), 'an older backup');
  assert.deepEqual(readdirSync(out), [names[0]]);
});

test('verify reads everything: a flipped byte, a changed file, a truncated archive, a missing and an extra entry are all caught', async () => {
  const { stack, data } = sources();
  const out = fresh('out');
  const good = join(out, 'good.tar.gz');
  await writeArchive({ dest: good, branches: { stack, appdata: data }, meta: {} });
  assert.equal((await verifyArchive(good)).ok, true);

  const bytes = readFileSync(good);
  const flipped = join(out, 'flipped.tar.gz');
  const copy = Buffer.from(bytes);
  const at = Math.floor(copy.length / 2);
  copy[at] = (copy[at] as number) ^ 0xff;
  writeFileSync(flipped, copy);
  const f = await verifyArchive(flipped);
  assert.equal(f.ok, false);
  assert.ok(f.problems.length > 0);

  const changed = join(out, 'changed.tar.gz');
  await rewrite(good, changed, (name, body) => (name === 'appdata/db/pg.bin' ? Buffer.from([0, 1, 2, 255, 253]) : body));
  const c = await verifyArchive(changed);
  assert.equal(c.ok, false);
  assert.deepEqual(c.problems, ['appdata/db/pg.bin: a checksum that does not match the manifest']);

  const truncated = join(out, 'truncated.tar.gz');
  writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  const t = await verifyArchive(truncated);
  assert.equal(t.ok, false);
  assert.match(t.problems.join('; '), /truncated or corrupt/);
  truncateSync(truncated, 0);
  assert.equal((await verifyArchive(truncated)).ok, false);

  const missing = join(out, 'missing.tar.gz');
  await rewrite(good, missing, (name, body) => (name === 'stack/.env' ? null : body));
  assert.deepEqual((await verifyArchive(missing)).problems, ['stack/.env: listed in the manifest but missing from the archive']);

  const extra = join(out, 'extra.tar.gz');
  await rewrite(good, extra, (_, body) => body, [{ name: 'stack/smuggled.sh', body: 'rm -rf /' }]);
  assert.deepEqual((await verifyArchive(extra)).problems, ['stack/smuggled.sh: an entry the manifest does not list']);

  const noManifest = join(out, 'nomanifest.tar.gz');
  await rewrite(good, noManifest, (name, body) => (name === MANIFEST_NAME ? null : body));
  assert.match((await verifyArchive(noManifest)).problems.join(), /no manifest/);
});

test('a failed backup leaves no file behind: a dump that breaks halfway, a missing folder', async () => {
  const { stack } = sources();
  const out = fresh('out');
  const dest = join(out, 'fail.tar.gz');
  const broken = () => {
    const s = new PassThrough();
    s.write('-- dump start\n'.repeat(10_000));
    setTimeout(() => s.destroy(new Error('the database went away')), 20);
    return s;
  };
  await assert.rejects(
    writeArchive({
      dest,
      branches: {
        stack,
        dumps: [
          { name: 'ok.sql', stream: () => Readable.from(['x']) },
          { name: 'db.sql', stream: broken },
        ],
      },
      meta: {},
    }),
    /the database went away/,
  );
  assert.deepEqual(readdirSync(out), []);

  await assert.rejects(writeArchive({ dest, branches: { stack: join(out, 'nope') }, meta: {} }), /ENOENT/);
  assert.deepEqual(readdirSync(out), []);

  await assert.rejects(
    writeArchive({ dest, branches: { stack, dumps: [{ name: '../db.sql', stream: () => Readable.from(['x']) }] }, meta: {} }),
    (e) => isAppError(e) && e.code === 'validation',
  );
  assert.deepEqual(readdirSync(out), []);
});

test('a backup a restore would refuse is not written: more entries or bytes than the limits fail it, leaving nothing', async () => {
  const { stack } = sources();
  const out = fresh('out');
  await assert.rejects(
    writeArchive({ dest: join(out, 'many.tar.gz'), branches: { stack }, meta: {}, limits: { maxEntries: 5, maxBytes: 1024 ** 3 } }),
    (e) => isAppError(e) && e.code === 'archive_refused' && /more than 5 files, folders and links/.test(e.message),
  );
  await assert.rejects(
    writeArchive({ dest: join(out, 'big.tar.gz'), branches: { stack }, meta: {}, limits: { maxEntries: 1000, maxBytes: 20 } }),
    (e) => isAppError(e) && e.code === 'archive_refused' && /more than 20 bytes/.test(e.message),
  );
  assert.deepEqual(readdirSync(out), []);
});

test('extraction needs a new or empty folder and leaves a non-empty one as it was', async () => {
  const { stack } = sources();
  const dest = join(fresh('out'), 'e.tar.gz');
  await writeArchive({ dest, branches: { stack }, meta: {} });
  const busy = fresh('busy');
  writeFileSync(join(busy, 'keep'), 'mine');
  await assert.rejects(extractArchive(dest, busy), (e) => isAppError(e) && e.code === 'conflict');
  assert.deepEqual(readdirSync(busy), ['keep']);
  const empty = fresh('empty');
  await extractArchive(dest, empty);
  assert.deepEqual(readdirSync(empty).sort(), ['stack']);
  assert.equal(lstatSync(join(empty, 'stack', 'current.ini')).isSymbolicLink(), true);
});

test('a change put back loads only the dumps: the whole archive is checked, only dumps/ is written', async () => {
  const { stack, data } = sources();
  const dest = join(fresh('out'), 'd.tar.gz');
  await writeArchive({ dest, branches: { stack, appdata: data, dumps: [{ name: 'db.sql', stream: () => Readable.from(['SELECT 1;\n']) }] }, meta: {} });
  const target = join(fresh('load'), 'dumps-only');
  const x = await extractArchive(dest, target, undefined, ['dumps']);
  assert.deepEqual(x.dumps, ['db.sql']);
  assert.deepEqual(readdirSync(target), ['dumps']);
  assert.equal(readFileSync(join(target, 'dumps', 'db.sql'), 'utf8'), 'SELECT 1;\n');
  // A damaged entry outside dumps/ still refuses the archive, with nothing written.
  const bad = join(fresh('out'), 'bad.tar.gz');
  await rewrite(dest, bad, (name, body) => (name === 'appdata/db/pg.bin' ? Buffer.from([9, 9, 9, 9, 9]) : body));
  const none = join(fresh('load'), 'refused');
  await assert.rejects(extractArchive(bad, none, undefined, ['dumps']), (e) => isAppError(e) && e.code === 'archive_refused');
  assert.equal(existsSync(none), false);
});

const hasZstd = spawnSync('zstd', ['--version']).status === 0;
test('zstd archives round trip like gzip ones', { skip: hasZstd ? false : 'the zstd program is not installed (Debian package zstd)' }, async () => {
  const { stack, data } = sources();
  const dest = join(fresh('out'), 'z.tar.zst');
  const m = await writeArchive({ dest, branches: { stack, appdata: data }, meta: {}, compression: 'zstd' });
  assert.equal(m.compression, 'zstd');
  assert.deepEqual(readFileSync(dest).subarray(0, 4), Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
  assert.equal((await inspectArchive(dest)).ok, true);
  const target = join(fresh('restore'), 't');
  await extractArchive(dest, target);
  assert.equal(sha(join(target, 'stack', '.env')), sha(join(stack, '.env')));
  const cut = join(fresh('out'), 'cut.tar.zst');
  writeFileSync(cut, readFileSync(dest).subarray(0, 200));
  const v = await verifyArchive(cut);
  assert.equal(v.ok, false);
  assert.match(v.problems.join(), /truncated or corrupt/);
});

test('the read-back after a backup: a sound archive reads back through its compressor, a flipped byte or a cut one does not', async () => {
  const { stack, data } = sources();
  const out = fresh('readback');
  for (const compression of hasZstd ? (['gzip', 'zstd'] as const) : (['gzip'] as const)) {
    const good = join(out, `good.${compression}`);
    await writeArchive({ dest: good, branches: { stack, appdata: data }, meta: {}, compression });
    assert.equal(await checkCompressed(good), null, compression);
    const bytes = readFileSync(good);
    const flipped = Buffer.from(bytes);
    const at = Math.floor(flipped.length / 2);
    flipped[at] = (flipped[at] as number) ^ 0xff;
    writeFileSync(join(out, `flipped.${compression}`), flipped);
    assert.match((await checkCompressed(join(out, `flipped.${compression}`))) ?? '', /does not read back as written/, compression);
    writeFileSync(join(out, `cut.${compression}`), bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    assert.match((await checkCompressed(join(out, `cut.${compression}`))) ?? '', /does not read back as written/, compression);
  }
  writeFileSync(join(out, 'plain'), 'not compressed');
  assert.equal(await checkCompressed(join(out, 'plain')), 'not a gzip or zstd compressed archive');
});

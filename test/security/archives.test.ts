import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, test } from 'node:test';
import { createGzip, gzipSync } from 'node:zlib';
import { type Header, pack as tarPack } from 'tar-stream';
import { type ArchiveLimits, DEFAULT_LIMITS, extractArchive, MANIFEST_NAME, verifyArchive } from '../../src/server/backups/archive.ts';
import { isAppError } from '../../src/server/core/errors.ts';

// A backup archive is hostile input at restore: a downloaded file put back, a disk that rots, someone with
// write access to BACKUP_DIR. Every archive here is built by the test and every one must be refused with
// nothing kept: `archive_refused` naming the entry and the reason, the target folder gone (extraction writes
// into it while it judges, and removes it on a refusal), nothing outside it touched, and verification failing
// too (a restore is refused on that alone).
const work = mkdtempSync(join(tmpdir(), 'kade-archsec-'));
after(() => rmSync(work, { recursive: true, force: true }));
let seq = 0;

type Spec = Partial<Header> & { name: string; body?: string | Buffer };

interface BuildOpts {
  /** 'auto': a manifest that matches the entries (so only the hostile part is wrong); 'none': no manifest. */
  manifest?: 'auto' | 'none' | { raw: string };
  tamper?: (m: { entries: Record<string, unknown>[] }) => void;
  after?: Spec[];
  compress?: boolean;
}

function manifestFor(entries: Spec[]) {
  return {
    format: 'kade-backup',
    version: 1,
    created_at: new Date().toISOString(),
    compression: 'gzip',
    entries: entries
      .filter((e) => ['file', 'directory', 'symlink', undefined].includes(e.type))
      .map((e) => {
        const body = Buffer.from(e.body ?? '');
        const type = e.type ?? 'file';
        return {
          path: e.name.replace(/\/$/, ''),
          type,
          size: type === 'file' ? body.length : 0,
          mode: e.mode ?? (type === 'directory' ? 0o755 : 0o644),
          uid: 0,
          gid: 0,
          sha256: type === 'file' ? createHash('sha256').update(body).digest('hex') : null,
          ...(type === 'symlink' ? { target: e.linkname } : {}),
        };
      }),
    skipped: [],
    stripped: [],
    owners: {},
    meta: {},
  };
}

async function build(entries: Spec[], opts: BuildOpts = {}): Promise<string> {
  const file = join(work, `hostile-${++seq}.tar.gz`);
  const pk = tarPack();
  const out =
    opts.compress === false ? pipeline(Readable.from(pk), createWriteStream(file)) : pipeline(Readable.from(pk), createGzip(), createWriteStream(file));
  const add = (e: Spec) => {
    const { body, ...header } = e;
    const data = Buffer.from(body ?? '');
    const h = { mode: header.type === 'directory' ? 0o755 : 0o644, ...header };
    if ((h.type ?? 'file') === 'file' || h.type === 'contiguous-file') pk.entry(h, data);
    else pk.entry(h).end(undefined);
  };
  for (const e of entries) add(e);
  const manifest = opts.manifest ?? 'auto';
  if (manifest !== 'none') {
    const m = manifestFor(entries);
    opts.tamper?.(m);
    add({ name: MANIFEST_NAME, type: 'file', mode: 0o600, body: typeof manifest === 'object' ? manifest.raw : JSON.stringify(m) });
  }
  for (const e of opts.after ?? []) add(e);
  pk.finalize();
  await out;
  return file;
}

const before = () => readdirSync(work).filter((n) => !n.startsWith('hostile-'));

async function refused(file: string, entry: string, reason: RegExp, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<void> {
  const target = join(work, `restore-${seq}`, 'staging');
  const others = before();
  await assert.rejects(extractArchive(file, target, limits), (e: unknown) => {
    assert.ok(isAppError(e), String(e));
    assert.equal(e.code, 'archive_refused');
    assert.equal(e.params.entry, entry, e.message);
    assert.match(String(e.params.reason), reason, e.message);
    assert.match(e.message, /nothing of it was kept/);
    return true;
  });
  assert.equal(existsSync(target), false, 'the target folder is left');
  assert.deepEqual(before(), others, 'something was written beside the target');
  assert.equal((await verifyArchive(file, limits)).ok, false, 'verification passed a hostile archive');
}

const ok = { name: 'stack/', type: 'directory' as const };
const compose = { name: 'stack/docker-compose.yml', body: 'services: {}\n' };
let cases = 0;
function hostile(name: string, fn: () => Promise<void>): void {
  test(name, async () => {
    cases++;
    await fn();
  });
}

hostile('an absolute path', async () => {
  await refused(await build([ok, { name: '/tmp/kade-evil', body: 'x' }]), '/tmp/kade-evil', /absolute path/);
  assert.equal(existsSync('/tmp/kade-evil'), false);
});
hostile('../x', async () => {
  await refused(await build([ok, { name: '../x', body: 'x' }]), '../x', /\.\. component/);
});
hostile('a/../../x inside a branch', async () => {
  await refused(await build([ok, { name: 'stack/a/../../x', body: 'x' }]), 'stack/a/../../x', /\.\. component/);
});
hostile('a PAX header that turns a harmless name into an absolute path', async () => {
  await refused(await build([ok, { name: 'stack/ok.txt', body: 'x', pax: { path: '/etc/kade-evil' } }]), '/etc/kade-evil', /absolute path/);
});
hostile('a symlink to /etc', async () => {
  await refused(await build([ok, compose, { name: 'stack/etc', type: 'symlink', linkname: '/etc' }]), 'stack/etc', /link to the absolute path \/etc/);
});
hostile('a symlink escaping through ..', async () => {
  const file = await build([ok, { name: 'stack/sub/', type: 'directory' }, { name: 'stack/sub/up', type: 'symlink', linkname: '../../../etc' }]);
  await refused(file, 'stack/sub/up', /leaves its branch stack\//);
});
hostile('links that each look inside but escape when followed through each other', async () => {
  // stack/a is the stack folder itself; stack/d1/b = d1/../a/.. which lexically is the stack folder but
  // is really its parent, and stack/d1/d2/c = ../b/.. is the parent of that.
  const file = await build([
    ok,
    { name: 'stack/a', type: 'symlink', linkname: '.' },
    { name: 'stack/d1/', type: 'directory' },
    { name: 'stack/d1/d2/', type: 'directory' },
    { name: 'stack/d1/b', type: 'symlink', linkname: '../a/..' },
    { name: 'stack/d1/d2/c', type: 'symlink', linkname: '../b/..' },
  ]);
  await refused(file, 'stack/d1/b', /leaves its branch stack\//);
});
hostile('links that loop', async () => {
  const file = await build([ok, { name: 'stack/a', type: 'symlink', linkname: 'b' }, { name: 'stack/b', type: 'symlink', linkname: 'a' }]);
  await refused(file, 'stack/a', /or loops/);
});
hostile('a file written through a link in its own path', async () => {
  const file = await build([
    ok,
    { name: 'stack/sub/', type: 'directory' },
    { name: 'stack/l', type: 'symlink', linkname: 'sub' },
    { name: 'stack/l/x', body: 'x' },
  ]);
  await refused(file, 'stack/l/x', /below a link/);
});
hostile('a hard link to /etc/passwd', async () => {
  await refused(await build([ok, { name: 'stack/passwd', type: 'link', linkname: '/etc/passwd' }]), 'stack/passwd', /hard link \(to \/etc\/passwd\)/);
});
hostile('a hard link inside the archive', async () => {
  await refused(await build([ok, compose, { name: 'stack/copy', type: 'link', linkname: 'stack/docker-compose.yml' }]), 'stack/copy', /hard link/);
});
hostile('a character device', async () => {
  await refused(await build([ok, { name: 'stack/null', type: 'character-device', devmajor: 1, devminor: 3 }]), 'stack/null', /character device/);
});
hostile('a block device', async () => {
  await refused(await build([ok, { name: 'appdata/sda', type: 'block-device', devmajor: 8, devminor: 0 }]), 'appdata/sda', /block device/);
});
hostile('a FIFO', async () => {
  await refused(await build([ok, { name: 'stack/pipe', type: 'fifo' }]), 'stack/pipe', /FIFO/);
});
hostile('a setuid file', async () => {
  await refused(await build([ok, { name: 'stack/su', body: '#!/bin/sh\n', mode: 0o4755 }]), 'stack/su', /setuid or setgid bit \(mode 4755\)/);
});
hostile('a setgid folder', async () => {
  await refused(
    await build([ok, { name: 'appdata/', type: 'directory' }, { name: 'appdata/shared/', type: 'directory', mode: 0o2775 }]),
    'appdata/shared/',
    /setuid or setgid/,
  );
});
hostile('an entry type tar knows but Kade does not restore (contiguous file)', async () => {
  await refused(await build([ok, { name: 'stack/c', type: 'contiguous-file', body: 'x' }]), 'stack/c', /unsupported entry type/);
});
hostile('an entry outside the three branches', async () => {
  await refused(await build([ok, { name: 'etc/cron.d/evil', body: '* * * * * root sh\n' }]), 'etc/cron.d/evil', /outside the branches stack, appdata, dumps/);
});
hostile('a dump nested below dumps/', async () => {
  await refused(
    await build([ok, { name: 'dumps/', type: 'directory' }, { name: 'dumps/x/evil.sql', body: 'x' }]),
    'dumps/x/evil.sql',
    /dump that is not a plain file/,
  );
});
hostile('the same name twice (a file swapped for a link on the second pass)', async () => {
  await refused(await build([ok, compose, { name: 'stack/docker-compose.yml', type: 'symlink', linkname: 'x' }]), 'stack/docker-compose.yml', /appears twice/);
});
hostile('more entries than the limit (200 000 + 1)', async () => {
  const file = join(work, `hostile-${++seq}.tar.gz`);
  const pk = tarPack();
  const gz = createGzip({ level: 1 });
  const out = pipeline(gz, createWriteStream(file));
  // tar-stream hands out one small chunk per header: gzip them a megabyte at a time.
  const copied = (async () => {
    let batch: Buffer[] = [];
    let size = 0;
    for await (const c of pk) {
      batch.push(c as Buffer);
      size += (c as Buffer).length;
      if (size < 1024 * 1024) continue;
      if (!gz.write(Buffer.concat(batch))) await once(gz, 'drain');
      batch = [];
      size = 0;
    }
    gz.end(Buffer.concat(batch));
  })();
  pk.entry({ name: 'stack/', type: 'directory' }).end(undefined);
  for (let i = 1; i <= DEFAULT_LIMITS.maxEntries; i++) {
    pk.entry({ name: `stack/f${i}`, type: 'file' }, '');
    if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  pk.finalize();
  await copied;
  await out;
  await refused(file, `stack/f${DEFAULT_LIMITS.maxEntries}`, /more than 200000 entries/);
});

/** The 512-byte tar header tar-stream writes for an entry, without writing its data. */
async function headerOnly(h: Spec): Promise<Buffer> {
  const pk = tarPack();
  pk.entry(h);
  for await (const c of pk) {
    pk.destroy();
    return c as Buffer;
  }
  throw new Error('no header');
}

/** gzip members back to back (gunzip reads them as one stream): a few MB on disk for GBs of zeros. */
function writeMembers(file: string, first: Buffer, zeroMiB: number): void {
  const zeros = gzipSync(Buffer.alloc(1024 * 1024), { level: 9 });
  const fd = openSync(file, 'w');
  writeSync(fd, gzipSync(first));
  for (let i = 0; i < zeroMiB; i++) writeSync(fd, zeros);
  closeSync(fd);
}

hostile('a gzip bomb that declares 2 GB of zeros', async () => {
  const file = join(work, `hostile-${++seq}.tar.gz`);
  writeMembers(file, await headerOnly({ name: 'appdata/zeros', type: 'file', size: 2 * 1024 ** 3 }), 2048);
  assert.ok(readFileSync(file).length < 8 * 1024 * 1024);
  await refused(file, 'appdata/zeros', /declared total of more than 1073741824 bytes/, { ...DEFAULT_LIMITS, maxBytes: 1024 ** 3 });
});
hostile('a gzip bomb of zero blocks that declares nothing (real bytes are counted)', async () => {
  const file = join(work, `hostile-${++seq}.tar.gz`);
  writeMembers(file, Buffer.concat([await headerOnly({ name: 'stack/', type: 'directory' })]), 512);
  await refused(file, '', /more data than its entries declare .* compression bomb/);
});
hostile('a truncated gzip stream', async () => {
  const body = Buffer.alloc(256 * 1024);
  for (let i = 0; i < body.length; i++) body[i] = (i * 7919) % 251;
  const whole = await build([ok, { name: 'stack/data.bin', body }]);
  const cut = join(work, `hostile-${++seq}.tar.gz`);
  const bytes = readFileSync(whole);
  writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  await refused(cut, '', /truncated or corrupt/);
});
hostile('no manifest', async () => {
  await refused(await build([ok, compose], { manifest: 'none' }), MANIFEST_NAME, /no manifest/);
});
hostile('a manifest that is not JSON', async () => {
  await refused(await build([ok, compose], { manifest: { raw: '{"format": "kade-backup", ' } }), MANIFEST_NAME, /not JSON/);
});
hostile('a manifest of another format or version', async () => {
  const m = JSON.stringify({ ...manifestFor([ok, compose]), version: 99 });
  await refused(await build([ok, compose], { manifest: { raw: m } }), MANIFEST_NAME, /known version/);
});
hostile('a checksum that does not match the manifest', async () => {
  const file = await build([ok, compose], {
    tamper: (m) => {
      const e = m.entries.find((x) => x.path === 'stack/docker-compose.yml');
      if (e) e.sha256 = 'a'.repeat(64);
    },
  });
  await refused(file, 'stack/docker-compose.yml', /checksum that does not match/);
});
hostile('an entry smuggled in after the manifest', async () => {
  const file = await build([ok, compose], { after: [{ name: 'stack/late.sh', body: 'rm -rf /' }] });
  await refused(file, 'stack/late.sh', /after the manifest/);
});
hostile('an archive that is not compressed', async () => {
  await refused(await build([ok, compose], { compress: false }), '', /not a gzip or zstd/);
});

test('a refusal leaves an existing empty target empty, and a sound archive of the same shape is accepted', async () => {
  const target = join(work, 'empty-target');
  mkdirSync(target);
  await assert.rejects(extractArchive(await build([ok, { name: 'stack/pipe', type: 'fifo' }]), target), (e) => isAppError(e) && e.code === 'archive_refused');
  assert.deepEqual(readdirSync(target), []);
  const sound = await build([ok, compose, { name: 'stack/sub/', type: 'directory' }, { name: 'stack/l', type: 'symlink', linkname: 'sub' }]);
  const x = await extractArchive(sound, target);
  assert.equal(x.stack.links, 1);
  assert.equal(readFileSync(join(target, 'stack', 'docker-compose.yml'), 'utf8'), 'services: {}\n');
});

test('every hostile case ran', () => {
  assert.equal(cases, 30);
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import type { FolderIO } from './folder-io.ts';
import { SNAPSHOTS_KEPT } from './snapshots.ts';
import { emptyMeta } from './stack-files.ts';
import { type StackStore, stackStoreOn } from './stack-store.ts';

/** A fresh, empty place for one case: the store's I/O and an absolute folder that exists in it. */
export interface StoreSetup {
  io: FolderIO;
  root: string;
}

const admin: Actor = { user: 'ada', role: 'admin', ip: '' };
const operator: Actor = { user: 'otto', role: 'operator', ip: '' };
const COMPOSE = 'services:\n  web:\n    image: nginx\n';
const ENV = 'PASSWORD="s3cret"\n';
const META_OBJ = emptyMeta('2026-11-28T10:00:00.000Z');
const META = `${JSON.stringify(META_OBJ, null, 2)}\n`;

/** A store on a fresh setup whose sealer writes a seal naming who sealed and how often, as the gate's would. */
function open(setup: StoreSetup) {
  const { io, root } = setup;
  const sealed: { app: string; by: string; overrides: readonly string[] }[] = [];
  let tick = 0;
  const store: StackStore = stackStoreOn(io, {
    libraryDir: join(root, 'stacks'),
    stateDir: join(root, 'state'),
    // A clock that moves: snapshot ids sort by time.
    clock: () => new Date(Date.UTC(2026, 10, 28, 10) + 1000 * tick++),
    sealer: {
      seal(p, actor) {
        sealed.push({ app: p.stack ?? p.name, by: actor.user, overrides: p.overrides ?? [] });
        const seal = { files: { n: String(sealed.length) }, approved: { outside: [], powers: [], role: actor.role }, by: actor.user, at: '' };
        store.putSealText(p.stack ?? p.name, JSON.stringify(seal));
      },
    },
  });
  io.mkdir(join(root, 'stacks'), 0o755);
  const mode = (path: string) => io.stat(path)?.mode;
  const text = (path: string) => io.read(path)?.toString('utf8') ?? null;
  const sealBy = (app: string) => (JSON.parse(store.sealText(app) ?? 'null') as { by: string } | null)?.by ?? null;
  return { io, root, store, sealed, mode, text, sealBy, lib: join(root, 'stacks') };
}

const app = (s: ReturnType<typeof open>, name = 'app') => s.store.create(name, { compose: COMPOSE, env: ENV, meta: META }, admin);

function refusal(work: () => unknown, code: string): AppError {
  try {
    work();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`not refused with ${code}`);
}

/** The store's cases: an install, and the temp folders a crash left. */
function installCases(fresh: () => StoreSetup): void {
  test('an install writes the three files in a temp folder renamed into place, with their modes, and seals them as the installer', () => {
    const s = open(fresh());
    const loc = app(s);
    assert.equal(loc.dir, join(s.lib, 'app'));
    assert.deepEqual(s.store.names(), ['app']);
    assert.equal(s.store.read(loc, 'compose'), COMPOSE);
    assert.equal(s.store.envText(loc), ENV);
    assert.deepEqual(s.store.meta(loc), META_OBJ);
    assert.deepEqual([s.mode(join(loc.dir, 'docker-compose.yml')), s.mode(loc.envPath), s.mode(loc.metaPath)], [0o644, 0o600, 0o600]);
    assert.deepEqual(
      s.io.list(s.lib).map((e) => e.name),
      ['app'],
      'no temp folder is left',
    );
    assert.deepEqual(s.sealed, [{ app: 'app', by: 'ada', overrides: [] }]);
    assert.equal(s.store.taken('app'), true);
    assert.equal(s.store.taken('other'), false);
  });
  test("an install writes the app's other files (an imported store's inline configs) in configs/, readable by the container; no other path", () => {
    const s = open(fresh());
    const extra = { 'configs/site.conf': 'server { listen 80; }\n', 'configs/init.sql': 'SELECT 1;\n' };
    const loc = s.store.create('app', { compose: COMPOSE, env: ENV, meta: META, extra }, admin);
    assert.equal(s.text(join(loc.dir, 'configs', 'site.conf')), extra['configs/site.conf']);
    assert.equal(s.text(join(loc.dir, 'configs', 'init.sql')), extra['configs/init.sql']);
    assert.equal(s.mode(join(loc.dir, 'configs', 'site.conf')), 0o644);
    for (const bad of ['../evil', 'configs/../../evil', '.env', 'configs/.hidden', '/etc/passwd', 'configs/a/b']) {
      assert.throws(
        () => s.store.create('other', { compose: COMPOSE, env: ENV, meta: META, extra: { [bad]: 'x' } }, admin),
        /is not a file an app's folder may hold/,
        bad,
      );
    }
    assert.deepEqual(
      s.io.list(s.lib).map((e) => e.name),
      ['app'],
      'a refused install leaves nothing behind',
    );
  });
  test('an install under a name taken meanwhile is refused and leaves nothing behind', () => {
    const s = open(fresh());
    app(s);
    assert.throws(() => app(s), /appeared while installing/);
    assert.deepEqual(
      s.io.list(s.lib).map((e) => e.name),
      ['app'],
    );
    assert.equal(s.sealed.length, 1);
  });
  test('install temp folders a crash left are removed when asked for; apps and other folders stay', () => {
    const s = open(fresh());
    app(s);
    for (const n of ['.tmp-app-0123abcd', '.tmp-other-89abcdef', '.restore-app-1']) s.io.mkdir(join(s.lib, n), 0o755);
    assert.deepEqual(
      s.store.cleanInstallTemps((a) => a === 'other'),
      ['.tmp-other-89abcdef'],
    );
    assert.deepEqual(
      s.io
        .list(s.lib)
        .map((e) => e.name)
        .sort(),
      ['.restore-app-1', '.tmp-app-0123abcd', 'app'],
    );
  });
}

/** The store's cases: writes in place and the return to a snapshot. */
function writeCases(fresh: () => StoreSetup): void {
  test('a write takes the snapshot first in the same call, writes all files with their modes and seals them as the writer', () => {
    const s = open(fresh());
    const loc = app(s);
    const seen: string[] = [];
    const snap = s.store.write(
      loc,
      { compose: `${COMPOSE}    restart: always\n`, env: 'PASSWORD="new"\n', meta: '{"format":1,"x":1}\n' },
      {
        actor: operator,
        snapshot: 'reconfigure',
        // Before any file changes, the snapshot exists and holds the files as they were.
        beforeWrite: (taken) => {
          seen.push(taken?.reason ?? 'none', s.store.envText(loc), s.store.snapshots.texts('app', taken?.id ?? '').env ?? '');
        },
      },
    );
    assert.deepEqual(seen, ['reconfigure', ENV, ENV]);
    assert.equal(snap.reason, 'reconfigure');
    assert.deepEqual(snap.files, ['docker-compose.yml', '.env', '.svc.json']);
    assert.equal(s.store.envText(loc), 'PASSWORD="new"\n');
    assert.deepEqual([s.mode(join(loc.dir, 'docker-compose.yml')), s.mode(loc.envPath), s.mode(loc.metaPath)], [0o644, 0o600, 0o600]);
    assert.equal(s.sealBy('app'), 'otto');
    assert.deepEqual(
      s.store.snapshots.list('app').map((x) => x.id),
      [snap.id],
    );
  });
  test('a return to the snapshot puts back every file byte for byte with its mode, removes a file it did not hold, and the seal it had', () => {
    const s = open(fresh());
    const loc = s.store.create('app', { compose: COMPOSE, env: ENV, meta: META }, admin);
    const snap = s.store.write(loc, { env: null, compose: 'services: {}\n' }, { actor: operator, snapshot: 'edit' });
    assert.equal(s.store.read(loc, 'env'), null, 'null removes the file');
    assert.equal(s.sealBy('app'), 'otto');
    // Taken while there is no .env: the return to it removes the one written since.
    const without = s.store.write(loc, { env: 'EXTRA=1\n' }, { actor: operator, snapshot: 'edit' });
    s.store.restore(loc, without.id);
    assert.equal(s.store.read(loc, 'env'), null);
    s.store.restore(loc, snap.id);
    assert.equal(s.store.read(loc, 'compose'), COMPOSE);
    assert.equal(s.store.envText(loc), ENV);
    assert.equal(s.mode(loc.envPath), 0o600);
    assert.equal(s.sealBy('app'), 'ada', 'the seal comes back with the files');
  });
}

/** The store's cases: seals and modes across snapshots. */
function snapshotCases(fresh: () => StoreSetup): void {
  test('a snapshot of files nobody sealed returns them without a seal; a restore as an actor seals them as theirs', () => {
    const s = open(fresh());
    const loc = app(s);
    s.store.putSealText('app', null);
    const snap = s.store.write(loc, { env: 'A=1\n' }, { actor: operator, snapshot: 'edit' });
    assert.equal(s.sealBy('app'), 'otto');
    s.store.restore(loc, snap.id);
    assert.equal(s.store.sealText('app'), null);
    const before = s.store.restore(loc, snap.id, { actor: admin, snapshot: 'restore' });
    assert.equal(before.reason, 'restore');
    assert.equal(s.sealBy('app'), 'ada');
  });
  test('a compose file keeps the mode it has; a missing snapshot is not_found; the newest snapshots are kept', () => {
    const s = open(fresh());
    const loc = app(s);
    const file = join(loc.dir, 'docker-compose.yml');
    s.io.write([{ path: file, content: COMPOSE, mode: 0o640 }]);
    s.store.write(loc, { compose: 'services: {}\n' }, { actor: admin });
    assert.equal(s.mode(file), 0o640);
    refusal(() => s.store.restore(loc, '20261128T100000000Z-00000000'), 'not_found');
    for (let i = 0; i <= SNAPSHOTS_KEPT; i++) s.store.write(loc, { env: `N=${i}\n` }, { actor: admin, snapshot: `edit ${i}` });
    const kept = s.store.snapshots.list('app');
    assert.equal(kept.length, SNAPSHOTS_KEPT);
    assert.ok(
      kept.every((k) => k.reason !== 'edit 0'),
      'the oldest one went',
    );
  });
}

/** The store's cases: an adopted app's folder. */
function adoptCases(fresh: () => StoreSetup): void {
  test("adoption links the user's folder, keeps the metadata and the network override in Kade's state, and never writes into the folder", () => {
    const s = open(fresh());
    const theirs = join(s.root, 'elsewhere', 'wiki');
    s.io.mkdir(theirs, 0o755);
    s.io.write([
      { path: join(theirs, 'compose.yaml'), content: COMPOSE, mode: 0o644 },
      { path: join(theirs, '.env'), content: 'X=1\n', mode: 0o644 },
    ]);
    const seen = s.store.foreignFolder(join(s.root, 'elsewhere', '..', 'elsewhere', 'wiki'));
    assert.deepEqual(seen, { real: theirs, isDir: true, composeFile: join(theirs, 'compose.yaml'), compose: COMPOSE, env: 'X=1\n' });
    assert.equal(s.store.foreignFolder(join(s.root, 'nowhere')), null);
    const meta = `${JSON.stringify({ format: 1, source: null, values: {}, value_types: {}, secret_env: {}, services: {}, networks: [], adopted: { path: theirs, project: 'wiki-prod' }, web: null, categories: [], template_version: null, installed_at: '' })}\n`;
    const loc = s.store.adopt('wiki', theirs, meta, operator);
    assert.equal(loc.adopted, true);
    assert.equal(loc.dir, theirs);
    assert.equal(loc.metaPath, join(s.root, 'state', 'adopted', 'wiki.json'));
    assert.equal(s.store.project(loc).name, 'wiki-prod');
    assert.deepEqual(s.store.adoptedPaths(), [{ name: 'wiki', path: theirs }]);
    assert.deepEqual(s.sealed, [{ app: 'wiki', by: 'otto', overrides: [] }]);

    const snap = s.store.write(loc, { override: 'services: {}\n' }, { actor: operator, snapshot: 'connect' });
    const override = join(s.root, 'state', 'adopted', 'wiki.networks.yml');
    assert.deepEqual(s.store.project(loc).overrides, [override]);
    assert.deepEqual(s.sealed.at(-1)?.overrides, [override], 'the seal covers the override compose now reads');
    s.store.restore(loc, snap.id);
    assert.equal(s.io.stat(override), null, 'the snapshot held no override: it goes');
    assert.deepEqual(
      s.io.list(theirs).map((e) => e.name),
      ['.env', 'compose.yaml'],
    );

    const managed = app(s, 'plain');
    refusal(() => s.store.write(managed, { override: 'x' }, { actor: admin }), 'conflict');
    s.store.remove(loc);
    assert.equal(s.store.find('wiki'), null);
    assert.equal(s.io.stat(loc.metaPath), null);
    assert.equal(s.io.read(join(theirs, '.env'))?.toString(), 'X=1\n', "the user's folder stays as it is");
    assert.deepEqual(s.store.snapshots.list('wiki'), []);
    assert.equal(s.store.sealText('wiki'), null);
  });
}

/** The store's cases: removal, the editor’s candidate and links. */
function folderCases(fresh: () => StoreSetup): void {
  test('removing an app removes its folder, snapshots and seal, and nothing of another app', () => {
    const s = open(fresh());
    const loc = app(s);
    app(s, 'other');
    s.store.write(loc, { env: 'A=1\n' }, { actor: admin, snapshot: 'edit' });
    s.store.remove(loc);
    assert.deepEqual(s.store.names(), ['other']);
    assert.deepEqual(s.store.snapshots.list('app'), []);
    assert.equal(s.store.sealText('app'), null);
    assert.notEqual(s.store.sealText('other'), null);
  });
  test('the compose editor’s candidate is a file beside Kade’s state for the check only, gone afterwards even when the check throws', async () => {
    const s = open(fresh());
    const loc = app(s);
    let seen: { file: string; dir: string; text: string | null } | null = null;
    await s.store.withCandidate(loc, 'services: {}\n', async (p) => {
      seen = { file: p.file, dir: p.dir, text: s.text(p.file) };
    });
    assert.ok(seen);
    const { file, dir, text } = seen as { file: string; dir: string; text: string | null };
    assert.equal(dir, loc.dir);
    assert.equal(text, 'services: {}\n');
    assert.ok(file.startsWith(join(s.root, 'state', 'tmp')));
    assert.equal(s.io.stat(file), null);
    await assert.rejects(
      s.store.withCandidate(loc, 'x', async () => {
        throw new Error('refused');
      }),
      /refused/,
    );
    assert.deepEqual(s.io.list(join(s.root, 'state', 'tmp')), []);
    assert.equal(s.store.read(loc, 'compose'), COMPOSE, 'the real file never changed');
  });
  test('a relative link of an adopted app is made absolute against the library it was written for; reads of missing files are empty', () => {
    const s = open(fresh());
    s.io.mkdir(join(s.root, 'copy'), 0o755);
    s.io.mkdir(join(s.root, 'stacks', 'x'), 0o755);
    const copy = stackStoreOn(s.io, { libraryDir: join(s.root, 'copy'), stateDir: join(s.root, 'state') });
    s.io.symlink('../stacks/x', join(s.root, 'copy', 'wiki'));
    copy.absoluteLink('wiki', join(s.root, 'stacks'));
    assert.equal(s.io.readlink(join(s.root, 'copy', 'wiki')), join(s.root, 'stacks', 'x'));
    const loc = s.store.locate('x');
    assert.equal(s.store.read(loc, 'compose'), null);
    assert.equal(s.store.envText(loc), '');
    assert.deepEqual(s.store.composeDoc(loc), {});
    refusal(() => s.store.locate('nope'), 'not_found');
    refusal(() => s.store.locate('../etc'), 'invalid_name');
  });
}

/** The store's cases: the swap of a whole folder. */
function swapCases(fresh: () => StoreSetup): void {
  test('a swap moves the folder aside and the staged one in, sealed as the restorer; the put-back returns both folder and seal', () => {
    const s = open(fresh());
    app(s);
    const staged = join(s.lib, '.restore-app-1', 'stack');
    s.io.mkdir(staged, 0o755);
    s.io.write([{ path: join(staged, 'docker-compose.yml'), content: 'services: {}\n', mode: 0o644 }]);
    const swap = s.store.swap.plan('app', 't1');
    assert.equal(swap.existed, true);
    s.store.swap.aside(swap);
    s.store.swap.moveIn(swap, staged, operator);
    assert.equal(s.store.read(s.store.locate('app'), 'compose'), 'services: {}\n');
    assert.equal(s.sealBy('app'), 'otto');
    s.store.swap.putBack(swap);
    const back = s.store.locate('app');
    assert.equal(s.store.read(back, 'compose'), COMPOSE);
    assert.equal(s.store.envText(back), ENV);
    assert.equal(s.sealBy('app'), 'ada');
    assert.equal(s.io.kind(swap.aside), null);

    const again = s.store.swap.plan('app', 't2');
    s.store.swap.aside(again);
    s.io.mkdir(staged, 0o755);
    s.io.write([{ path: join(staged, 'docker-compose.yml'), content: 'services: {}\n', mode: 0o644 }]);
    s.store.swap.moveIn(again, staged, operator);
    s.store.swap.done(again);
    assert.equal(s.io.kind(again.aside), null);
    assert.equal(s.store.read(s.store.locate('app'), 'compose'), 'services: {}\n');
  });
  test('the put-back of a swap for an app that did not exist removes what came in, with its seal', () => {
    const s = open(fresh());
    const staged = join(s.lib, '.restore-new-1', 'stack');
    s.io.mkdir(staged, 0o755);
    s.io.write([{ path: join(staged, 'docker-compose.yml'), content: COMPOSE, mode: 0o644 }]);
    const swap = s.store.swap.plan('new', 't');
    assert.deepEqual([swap.existed, swap.seal], [false, null]);
    s.store.swap.aside(swap);
    s.store.swap.moveIn(swap, staged, admin);
    assert.deepEqual(s.store.names(), ['new']);
    s.store.swap.putBack(swap);
    assert.equal(s.store.find('new'), null);
    assert.equal(s.store.sealText('new'), null);
  });
}

/**
 * The stack store's cases: one function, run against the disk (a temp folder) and against memory in the unit tier
 * (stack-store.test.ts). Where the two part, the disk is right and memory-io.ts is fixed.
 */
export function stackStoreContract(kind: string, fresh: () => StoreSetup): void {
  describe(`the stack store (${kind})`, () => {
    installCases(fresh);
    writeCases(fresh);
    snapshotCases(fresh);
    adoptCases(fresh);
    folderCases(fresh);
    swapCases(fresh);
  });
}

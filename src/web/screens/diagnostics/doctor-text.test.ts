import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { stubBrowserGlobals } from '../../../../test/helpers/browser-globals.ts';
import { createDoctor, type DoctorDeps } from '../../../server/doctor/doctor.service.ts';
import { compareFolder, type Seen } from '../../../server/doctor/mounts.ts';
import { createFakeCompose } from '../../../server/engine/fake-compose.ts';
import { createFakeEngine } from '../../../server/engine/fake-engine.ts';
import { DOCTOR_CODES, type DoctorCheckT, type DoctorCode, type DoctorParams } from '../../../shared/doctor.ts';

// Every finding of the doctor reads in nl and en (issue 24 item 20): each code of shared/doctor.ts has a text in both,
// and the params the server's own checks give it fill every placeholder. Started from a checkout, no finding speaks
// of a container.

let findingText: (f: { code: DoctorCode; params: DoctorParams }, english: string) => string;
let setLang: (l: 'nl' | 'en') => void;
before(async () => {
  stubBrowserGlobals();
  ({ findingText } = await import('./doctor-text.ts'));
  ({ setLang } = await import('../../i18n.ts'));
});

const SEEN: (Seen | null)[] = [0, 1, 3, 'missing', 'not_a_folder', 'unreadable', null];

/** The mount findings of every pair of views, from both sides, with and without a host path of its own. */
function mountFindings(): DoctorCheckT[] {
  const out: DoctorCheckT[] = [];
  for (const side of ['container', 'checkout'] as const)
    for (const inside of SEEN)
      for (const outside of SEEN)
        if (inside !== null) {
          out.push(compareFolder('/srv/kade', '/srv/kade', inside, outside, 'docker compose up -d --force-recreate', 'no probe image', side));
          out.push(compareFolder('/srv/kade/stacks', '/data/stacks', inside, outside, 'docker compose up -d --force-recreate', undefined, side));
        }
  return out;
}

/** A machine without any compose CLI. */
const noCompose = () => createFakeCompose({ endpoint: { socketPath: '/var/run/docker.sock' }, engine: createFakeEngine(), variant: null });

/** The doctor over folders made for it and an engine stood in for, in one of several states. */
async function doctorFindings(): Promise<DoctorCheckT[]> {
  const root = mkdtempSync(join(tmpdir(), 'kade-doctor-text-'));
  const lib = join(root, 'base', 'stacks');
  mkdirSync(join(lib, 'app', ''), { recursive: true });
  writeFileSync(join(lib, 'app', 'compose.yaml'), 'services: {}\n');
  mkdirSync(join(lib, 'nocompose'));
  mkdirSync(join(root, 'own'));
  writeFileSync(join(root, 'own', 'compose.yaml'), 'services: {}\n');
  symlinkSync(join(root, 'own'), join(lib, 'adopted'));
  mkdirSync(join(root, 'own-empty'));
  symlinkSync(join(root, 'own-empty'), join(lib, 'adopted-empty'));
  mkdirSync(join(lib, '.hidden'));
  mkdirSync(join(lib, 'Bad Name'));
  symlinkSync(join(root, 'nowhere'), join(lib, 'dangling'));
  writeFileSync(join(lib, 'file'), 'x');
  writeFileSync(join(root, 'a-file'), 'x');
  symlinkSync(join(root, 'a-file'), join(lib, 'tofile'));
  mkdirSync(join(root, 'clean', 'one'), { recursive: true });
  writeFileSync(join(root, 'clean', 'one', 'compose.yaml'), 'services: {}\n');
  const base = join(root, 'base');
  const paths = { BASE_DIR: base, LIBRARY_DIR: lib, DATA_DIR: join(base, 'appdata'), BACKUP_DIR: join(base, 'backups') };
  const engine = (state: 'ok' | 'down' | 'own' | 'own-healthy' | 'own-gone') => ({
    ping: async () => {
      if (state === 'down') throw new Error('connect ECONNREFUSED /var/run/docker.sock');
      return { version: '27.3.1', apiVersion: '1.47' };
    },
    inspectContainer: async () => {
      if (state === 'own-gone') throw new Error('no such container');
      return {
        Name: '/kade-kade-1',
        State: { Status: 'running', ...(state === 'own-healthy' ? { Health: { Status: 'healthy' } } : {}) },
        Mounts: [{ Type: 'bind', Source: '/elsewhere/base', Destination: base }],
        Config: { Labels: { 'com.docker.compose.project.working_dir': '/opt/kade' } },
      };
    },
    runContainer: async () => {
      throw new Error('no probe image');
    },
  });
  const make = (over: Partial<DoctorDeps>, state: Parameters<typeof engine>[0]) =>
    createDoctor({
      engine: engine(state) as never,
      compose: createFakeCompose({ endpoint: { socketPath: '/var/run/docker.sock' }, engine: createFakeEngine() }),
      paths,
      rules: { mountedBase: base, uid: 0 },
      svcUid: 0,
      svcGid: 0,
      processUid: 0,
      ownContainerId: null,
      probeImage: 'kade-test/busybox:1',
      storeApps: () => 3,
      refusedFiles: () => [],
      ...over,
    });
  const runs = [
    make({}, 'ok'),
    make({ compose: noCompose(), storeApps: () => 0 }, 'down'),
    make({ compose: noCompose() }, 'ok'),
    make(
      {
        ownContainerId: 'abc123',
        svcUid: null,
        lowDiskBytes: Number.MAX_SAFE_INTEGER,
        refusedFiles: () => [{ name: 'blog', message: 'its compose file changed' }],
      },
      'own',
    ),
    make(
      {
        ownContainerId: 'abc123',
        svcUid: 1000,
        storeApps: () => {
          throw new Error('EACCES');
        },
        storedPaths: () => ({ ...paths, BACKUP_DIR: '/etc/kade' }),
        paths: { ...paths, DATA_DIR: '/etc' },
      },
      'own-healthy',
    ),
    make({ ownContainerId: 'abc123', processUid: null }, 'own-gone'),
    make({ paths: { ...paths, DATA_DIR: join(root, 'a-file', 'x') } }, 'ok'),
    make({ paths: { ...paths, LIBRARY_DIR: join(root, 'clean') } }, 'ok'),
  ];
  return (await Promise.all(runs.map((d) => d.run()))).flatMap((r) => r.checks);
}

test("every finding of the doctor reads in nl and en, every placeholder filled by the server's params", async () => {
  // A file system that does not answer statfs is not made here: its finding as disk() makes it.
  const diskUnknown = { code: 'disk_unknown' as const, params: { key: 'BASE_DIR', path: '"/srv/kade"', error: 'EIO: i/o error' } };
  const findings = [...mountFindings(), ...(await doctorFindings()), diskUnknown];
  const lines = findings.flatMap((f) => [f, ...('detail_codes' in f ? (f.detail_codes ?? []) : [])]);
  const made = new Set(lines.map((l) => l.code));
  assert.deepEqual(
    DOCTOR_CODES.filter((c) => !made.has(c)),
    [],
    "each code is made by the server's checks here",
  );
  for (const lang of ['nl', 'en'] as const) {
    setLang(lang);
    for (const l of lines) {
      const text = findingText(l, 'THE ENGLISH FALLBACK');
      assert.notEqual(text, 'THE ENGLISH FALLBACK', `${lang}: doctor.msg.${l.code} is missing`);
      assert.doesNotMatch(text, /\{\w+\}/, `${lang} ${l.code}: ${text} (${JSON.stringify(l.params)})`);
    }
  }
});

test('started from a checkout, no finding speaks of a container, in nl or en', async () => {
  const checkout = [...mountFindings().filter((f) => f.code.endsWith('_checkout')), ...(await doctorFindings()).filter((f) => f.code === 'own_checkout')];
  assert.ok(checkout.length > 20);
  for (const lang of ['nl', 'en'] as const) {
    setLang(lang);
    for (const f of checkout) {
      if (f.code === 'own_checkout') continue;
      assert.doesNotMatch(findingText(f, f.message), /container/i, `${lang} ${f.code}`);
      assert.doesNotMatch(f.message, /container/i, `the English message of ${f.code}`);
      assert.equal(f.fix, null, `${f.code}: recreating a container is no fix from a checkout`);
    }
  }
  setLang('nl');
  const empty = compareFolder('/srv/kade/stacks', '/srv/kade/stacks', 0, 1, 'x', undefined, 'checkout');
  assert.equal(
    findingText(empty, empty.message),
    '"/srv/kade/stacks" is leeg waar Kade draait terwijl de host van de engine 1 item heeft: Kade en de engine zien niet dezelfde mappen',
  );
  setLang('en');
  assert.equal(empty.message, findingText(empty, ''), 'the English of the interface is the server’s');
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { JobT } from '../../shared/api.ts';
import { AppError } from '../core/errors.ts';
import type { Actor, EventBus } from '../core/events.ts';
import type { SelfUpdateEngine } from './docker.ts';
import { createSelfUpdate, type SelfUpdateDeps } from './self-update.service.ts';
import { writeUpdateState } from './state-file.ts';
import type { OwnInspection } from './target.ts';

const admin: Actor = { user: 'admin', role: 'admin', ip: '127.0.0.1' };
const stateDir = mkdtempSync(join(tmpdir(), 'kade-self-update-'));
after(() => rmSync(stateDir, { recursive: true, force: true }));

const own: OwnInspection = {
  Config: {
    Image: '127.0.0.1:5000/kade:v0.1.00',
    Labels: {
      'com.docker.compose.project': 'kade',
      'com.docker.compose.service': 'kade',
      'com.docker.compose.project.working_dir': '/opt/kade',
      'com.docker.compose.project.config_files': '/opt/kade/compose.yaml',
    },
  },
  Mounts: [{ Type: 'bind', Source: '/var/run/docker.sock', Destination: '/var/run/docker.sock' }],
};
const engine: SelfUpdateEngine = {
  inspectOwn: async () => own,
  repoDigests: async () => ['127.0.0.1:5000/kade@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'],
  pull: async () => undefined,
  startHelper: async () => 'helper',
};

function service(over: Partial<SelfUpdateDeps> & { tags?: string[] } = {}) {
  const asked: number[] = [];
  let clock = 0;
  const s = createSelfUpdate({
    engine,
    registry: {
      listTags: async () => {
        asked.push(clock);
        return { ok: true, tags: over.tags ?? ['v0.1.00', 'v0.1.01', 'v0.1.02-beta'], truncated: false };
      },
    },
    jobs: { startExclusive: () => ({ id: 'job' }) as JobT },
    events: { emit: () => undefined, subscribe: () => () => undefined } as unknown as EventBus,
    channel: () => 'stable',
    credentials: () => null,
    ownContainerId: 'abcdef0123456789',
    socketPath: '/var/run/docker.sock',
    stateDir,
    version: 'v0.1.00',
    healthSeconds: 60,
    now: () => clock,
    ...over,
  });
  return { s, asked, tick: (ms: number) => (clock += ms) };
}

test('the newest version on the channel is asked once an hour; force asks now', async () => {
  const { s, asked, tick } = service();
  const first = await s.status(admin);
  assert.equal(first.latest, 'v0.1.01');
  assert.equal(first.available, true);
  assert.equal(first.possible, true);
  assert.equal(first.image, '127.0.0.1:5000/kade:v0.1.00');
  tick(59 * 60_000);
  await s.status(admin);
  assert.equal(asked.length, 1, 'cached within the hour');
  await s.status(admin, { force: true });
  assert.equal(asked.length, 2, 'force skips the cache');
  tick(61 * 60_000);
  await s.status(admin);
  assert.equal(asked.length, 3, 'asked again after an hour');
});

test('the beta channel offers the pre-release; a channel change is not answered from the other channel’s cache', async () => {
  let channel: 'stable' | 'beta' = 'stable';
  const { s } = service({ channel: () => channel });
  assert.equal((await s.status(admin)).latest, 'v0.1.01');
  channel = 'beta';
  const beta = await s.status(admin);
  assert.equal(beta.latest, 'v0.1.02-beta');
  assert.equal(beta.channel, 'beta');
});

test('outside a container updating is impossible and says why; the update is refused with that reason', async () => {
  const { s, asked } = service({ ownContainerId: null });
  const st = await s.status(admin);
  assert.equal(st.possible, false);
  assert.equal(st.reason_code, 'not_in_container');
  assert.match(st.reason ?? '', /does not run in a container/);
  assert.equal(asked.length, 0, 'no registry question when updating is impossible');
  await assert.rejects(s.update(admin), (e: unknown) => e instanceof AppError && e.code === 'conflict' && /does not run in a container/.test(e.message));
});

test('nothing newer: the update is refused; no previous tag: the rollback is refused; a remembered one is offered', async () => {
  const { s } = service({ tags: ['v0.1.00', 'v0.0.90'] });
  await assert.rejects(s.update(admin), /newest version on the stable channel/);
  await assert.rejects(s.rollback(admin), /no previous version/);
  writeUpdateState(stateDir, { previous: 'v0.0.90', last: null });
  assert.equal((await s.status(admin)).previous, 'v0.0.90');
  assert.equal((await s.rollback(admin)).id, 'job');
});

test('viewers and operators get no answer', async () => {
  const { s } = service();
  await assert.rejects(s.status({ ...admin, role: 'operator' }), (e: unknown) => e instanceof AppError && e.code === 'forbidden');
});

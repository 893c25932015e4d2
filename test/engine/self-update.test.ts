// Kade updates itself (issue #16 item 4): Kade's image from this work tree in a local registry under
// three tags, a Kade started from it with compose (project kadetest-selfupdate, host network so it
// reaches the registry on 127.0.0.1), then through Kade's API: the newer tag is offered, the update
// recreates Kade on it through the helper container, the rollback goes back, and a new tag whose server
// never answers /healthz is rolled back by the helper on its own. A Kade from a locally built image says
// why it cannot update.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine, TEST_LABEL } from '../helpers/engine.ts';
import { run, type SelfUpdateKade, startSelfUpdateKade } from '../helpers/self-update-kade.ts';
import { freePort } from './contract-helpers.ts';

let kade: SelfUpdateKade;
const api = () => new ApiClient(kade.url);

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  kade = await startSelfUpdateKade({ project: 'kadetest-selfupdate', tags: ['v0.1.00', 'v0.1.01'], healthSeconds: 60 });
});

after(async () => {
  await kade?.close();
  await cleanupLabelled();
});

test('update to the newer tag, roll back, and a new version that never answers is rolled back by the helper', async () => {
  const admin = api();
  await admin.loginAs();
  let s = await admin.get('/api/update?force=1');
  assert.equal(s.status, 200, JSON.stringify(s.body));
  assert.deepEqual(
    {
      current: s.body.current,
      latest: s.body.latest,
      available: s.body.available,
      possible: s.body.possible,
      reason: s.body.reason,
      previous: s.body.previous,
    },
    { current: 'v0.1.00', latest: 'v0.1.01', available: true, possible: true, reason: null, previous: null },
    JSON.stringify(s.body),
  );
  assert.equal(s.body.image, `${kade.image}:v0.1.00`);

  const up = await admin.post('/api/update');
  assert.equal(up.status, 202, JSON.stringify(up.body));
  const job = await admin.waitJob(up.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
  assert.ok(
    job.log.some((l) => l.includes(`pulling ${kade.image}:v0.1.01`)),
    job.log.join('\n'),
  );
  await kade.waitForVersion('v0.1.01');
  assert.equal(await kade.envTag(), 'v0.1.01');

  // The session lives in SVC_DATA, which the new container has too.
  s = await kade.settled(admin);
  assert.equal(s.status, 200, JSON.stringify(s.body));
  assert.equal(s.body.current, 'v0.1.01');
  assert.equal(s.body.previous, 'v0.1.00');
  assert.equal(s.body.available, false);
  assert.equal(s.body.last?.state, 'done', JSON.stringify(s.body.last));

  const back = await admin.post('/api/update/rollback');
  assert.equal(back.status, 202, JSON.stringify(back.body));
  assert.equal((await admin.waitJob(back.body.job.id)).state, 'succeeded');
  await kade.waitForVersion('v0.1.00');
  assert.equal(await kade.envTag(), 'v0.1.00');
  s = await kade.settled(admin);
  assert.equal(s.body.previous, null);
  assert.deepEqual([s.body.last?.action, s.body.last?.state, s.body.last?.to], ['rollback', 'done', 'v0.1.00']);

  // v0.1.02 starts, but its server never runs: /healthz stays silent, so the helper goes back.
  await kade.push('v0.1.02', ['sleep', '3600']);
  const broken = await admin.post('/api/update');
  assert.equal(broken.status, 202, JSON.stringify(broken.body));
  assert.equal((await admin.waitJob(broken.body.job.id)).state, 'succeeded');
  // Away while v0.1.02 is tried, then back on v0.1.00.
  for (let i = 0; i < 60 && (await kade.health()) === 'v0.1.00'; i++) await sleep(500);
  await kade.waitForVersion('v0.1.00');
  s = await kade.settled(admin);
  assert.equal(s.body.last?.state, 'rolled_back', JSON.stringify(s.body.last));
  assert.equal(s.body.last?.to, 'v0.1.02');
  assert.match(s.body.last?.message ?? '', /did not come up.*rolled back to v0\.1\.00/);
  assert.equal(await kade.envTag(), 'v0.1.00');
});

test('a Kade from a locally built image cannot update itself and says why', async () => {
  const localPort = await freePort();
  const name = 'kadetest-selfupdate-local';
  await run('docker', [
    'run',
    '-d',
    '--name',
    name,
    '--label',
    `${TEST_LABEL}=1`,
    '--init',
    '--network',
    'host',
    '-v',
    '/var/run/docker.sock:/var/run/docker.sock',
    '-e',
    `SVC_PORT=${localPort}`,
    '-e',
    'SVC_BIND=127.0.0.1',
    '-e',
    'SVC_UID=0',
    kade.local,
  ]);
  try {
    const client = new ApiClient(`http://127.0.0.1:${localPort}`);
    for (let i = 0; i < 90; i++) {
      if ((await fetch(`http://127.0.0.1:${localPort}/healthz`).catch(() => null))?.ok) break;
      await sleep(1000);
    }
    await client.loginAs();
    const s = await client.get('/api/update');
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.equal(s.body.possible, false);
    assert.equal(s.body.reason_code, 'not_registry_image');
    assert.match(s.body.reason, /locally built image/);
    const refused = await client.post('/api/update');
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
  } finally {
    await run('docker', ['rm', '--force', name]).catch(() => undefined);
  }
});

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ContainerSummary } from '../../engine/engine.ts';
import { createFakeEngine } from '../../engine/fake-engine.ts';
import { diskIO } from '../store/disk-io.ts';
import { createStackDirs } from '../store/stack-dir.ts';
import { groupByStack, presentStack, sharedListing, stackNames, statusOf } from './listing.ts';

const c = (service: string, state: string, extra: Partial<ContainerSummary> = {}): ContainerSummary => ({
  id: `${service}-${state}`,
  name: service,
  image: 'img',
  state,
  status: '',
  health: null,
  ports: [],
  labels: {},
  project: 'p',
  service,
  workingDir: null,
  created: 0,
  ...extra,
});

test('status from the services of the compose file and their containers', () => {
  assert.equal(statusOf(['web', 'db'], [c('web', 'running'), c('db', 'running')]), 'running');
  assert.equal(statusOf(['web', 'db'], [c('web', 'running')]), 'partial');
  assert.equal(statusOf(['web', 'db'], [c('web', 'running'), c('db', 'exited')]), 'partial');
  assert.equal(statusOf(['web'], [c('web', 'exited')]), 'stopped');
  assert.equal(statusOf(['web'], []), 'stopped');
  assert.equal(statusOf(['web'], [c('web', 'restarting')]), 'restarting');
});

test('concurrent callers share one engine listing filtered on the project label', async () => {
  const engine = createFakeEngine();
  engine.put(c('web', 'running'));
  const calls = () => engine.calls.filter((x) => x.method === 'listContainers').map((x) => x.args[0]);
  const list = sharedListing(engine);
  const release = engine.hold('listContainers');
  const asked = Array.from({ length: 8 }, () => list());
  release();
  const results = await Promise.all(asked);
  assert.equal(calls().length, 1);
  assert.deepEqual(calls()[0], { composeOnly: true });
  assert.equal(results[7]?.length, 1);
  await list();
  assert.equal(calls().length, 2, 'a later request asks again');
});

test('containers belong to a stack by project name or by a working dir under LIBRARY_DIR', () => {
  const groups = groupByStack(
    [c('web', 'running', { project: 'alpha' }), c('x', 'running', { project: 'other-name', workingDir: '/lib/beta' }), c('y', 'running', { project: null })],
    '/lib',
  );
  assert.deepEqual([...groups.keys()].sort(), ['alpha', 'beta']);
});

test('a folder without a compose file is listed with a warning; unsafe names are not listed', () => {
  const lib = mkdtempSync(join(tmpdir(), 'kade-lib-'));
  mkdirSync(join(lib, 'empty'));
  mkdirSync(join(lib, 'ok'));
  mkdirSync(join(lib, 'Bad Name'));
  mkdirSync(join(lib, '.tmp-x'));
  writeFileSync(join(lib, 'ok', 'docker-compose.yml'), 'services:\n  web:\n    image: x\n  db:\n    image: y\n');
  assert.deepEqual(stackNames(lib), ['empty', 'ok']);
  const opts = { host: 'h', repoStatus: () => null };
  const dirs = createStackDirs(diskIO(), lib, join(lib, '.state'));
  const empty = presentStack(dirs, 'empty', [], opts);
  assert.equal(empty.status, 'missing_compose');
  assert.ok(empty.warning);
  assert.deepEqual(empty.categories, ['overig']);
  const ok = presentStack(dirs, 'ok', [c('web', 'running')], opts);
  assert.equal(ok.status, 'partial');
  assert.deepEqual(ok.services, ['web', 'db']);
  assert.equal(presentStack(dirs, 'ok', null, opts).status, 'unknown', 'engine unreachable');
  rmSync(lib, { recursive: true, force: true });
});

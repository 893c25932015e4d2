import assert from 'node:assert/strict';
import { test } from 'node:test';
import { filterContainers } from './container-filter.ts';
import type { ContainerEntryT } from './containers-api.ts';

const entry = (name: string, more: Partial<ContainerEntryT> = {}): ContainerEntryT => ({
  id: `${name}0123456789abcdef`,
  name,
  image: 'busybox:1',
  state: 'running',
  status: 'Up',
  health: null,
  ports: [],
  created: '2026-01-01T00:00:00Z',
  project: null,
  service: null,
  stack: null,
  managed: false,
  own: false,
  ...more,
});

const list = [
  entry('web-1', { image: 'nginx:1.27', stack: 'blog', project: 'blog', service: 'web', managed: true }),
  entry('db-1', { image: 'postgres:16', stack: 'blog', project: 'blog', service: 'db', managed: true, state: 'exited' }),
  entry('scratch', { image: 'alpine:3', state: 'exited' }),
];
const names = (l: ContainerEntryT[]) => l.map((c) => c.name);

test('every word of the search must match the name, image, app, service or id', () => {
  assert.deepEqual(names(filterContainers(list, '', 'all')), ['web-1', 'db-1', 'scratch']);
  assert.deepEqual(names(filterContainers(list, 'BLOG', 'all')), ['web-1', 'db-1']);
  assert.deepEqual(names(filterContainers(list, 'blog postgres', 'all')), ['db-1']);
  assert.deepEqual(names(filterContainers(list, 'alpine', 'all')), ['scratch']);
  assert.deepEqual(names(filterContainers(list, 'scratch0123', 'all')), ['scratch']);
  assert.deepEqual(names(filterContainers(list, 'nothing', 'all')), []);
});

test('the kind narrows to running, stopped, of an app or not', () => {
  assert.deepEqual(names(filterContainers(list, '', 'running')), ['web-1']);
  assert.deepEqual(names(filterContainers(list, '', 'stopped')), ['db-1', 'scratch']);
  assert.deepEqual(names(filterContainers(list, '', 'apps')), ['web-1', 'db-1']);
  assert.deepEqual(names(filterContainers(list, '', 'other')), ['scratch']);
  assert.deepEqual(names(filterContainers(list, 'blog', 'stopped')), ['db-1']);
});

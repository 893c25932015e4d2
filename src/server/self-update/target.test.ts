import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageName, type OwnInspection, updateTarget } from './target.ts';

const own = (over: Partial<OwnInspection> = {}, labels: Record<string, string> = {}): OwnInspection => ({
  Name: '/kade-kade-1',
  Config: {
    Image: 'ghcr.io/acme/kade:v0.1.00',
    Labels: {
      'com.docker.compose.project': 'kade',
      'com.docker.compose.service': 'kade',
      'com.docker.compose.project.working_dir': '/opt/kade',
      'com.docker.compose.project.config_files': 'compose.yaml,/opt/kade/override.yaml',
      ...labels,
    },
  },
  Mounts: [
    { Type: 'bind', Source: '/run/docker.sock', Destination: '/var/run/docker.sock' },
    { Type: 'volume', Name: 'kade_data', Source: '/var/lib/docker/volumes/kade_data/_data', Destination: '/data' },
  ],
  ...over,
});
const digests = ['ghcr.io/acme/kade@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'];
const opts = { socketPath: '/var/run/docker.sock', stateDir: '/data' };

test('a compose-started container of a registry image can update: image, labels and mounts are what the helper needs', () => {
  const r = updateTarget(own(), digests, opts);
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual(r.target, {
    image: 'ghcr.io/acme/kade:v0.1.00',
    name: 'ghcr.io/acme/kade',
    registry: 'ghcr.io',
    repository: 'acme/kade',
    tag: 'v0.1.00',
    project: 'kade',
    service: 'kade',
    workingDir: '/opt/kade',
    configFiles: ['/opt/kade/compose.yaml', '/opt/kade/override.yaml'],
    socket: { type: 'bind', source: '/run/docker.sock', destination: '/var/run/docker.sock' },
    data: { type: 'volume', source: 'kade_data', destination: '/data' },
  });
});

test('no engine socket: DOCKER_HOST over tcp, or the socket not mounted into the container', () => {
  const tcp = updateTarget(own(), digests, { ...opts, socketPath: null });
  assert.ok(!tcp.ok && tcp.code === 'no_engine_socket');
  const unmounted = updateTarget(own({ Mounts: [] }), digests, opts);
  assert.ok(!unmounted.ok && unmounted.code === 'no_engine_socket');
  assert.match(unmounted.reason, /\/var\/run\/docker\.sock is not mounted/);
});

test('not a registry image: built locally (no RepoDigest of its repository), or pinned by digest', () => {
  const local = updateTarget(own({ Config: { Image: 'kade:latest', Labels: own().Config?.Labels ?? null } }), [], opts);
  assert.ok(!local.ok && local.code === 'not_registry_image');
  assert.match(local.reason, /kade:latest/);
  // A digest of another repository does not count.
  const other = updateTarget(own(), ['docker.io/library/nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'], opts);
  assert.ok(!other.ok && other.code === 'not_registry_image');
  const pinned = updateTarget(own({ Config: { Image: `ghcr.io/acme/kade@${digests[0]?.split('@')[1]}`, Labels: {} } }), digests, opts);
  assert.ok(!pinned.ok && pinned.code === 'not_registry_image');
});

test('no working directory: a container not started by compose, or labels without the working dir or config files', () => {
  for (const labels of [
    { 'com.docker.compose.project.working_dir': '' },
    { 'com.docker.compose.project.config_files': '' },
    { 'com.docker.compose.project.working_dir': 'relative/dir' },
    { 'com.docker.compose.service': '' },
  ]) {
    const r = updateTarget(own({}, labels), digests, opts);
    assert.ok(!r.ok && r.code === 'no_working_dir', JSON.stringify(labels));
  }
  const plain = updateTarget(own({ Config: { Image: 'ghcr.io/acme/kade:v0.1.00', Labels: null } }), digests, opts);
  assert.ok(!plain.ok && plain.code === 'no_working_dir');
});

test('SVC_DATA that is not a mount: the update still works, without a result file', () => {
  const r = updateTarget(own({ Mounts: [{ Type: 'bind', Source: '/run/docker.sock', Destination: '/var/run/docker.sock' }] }), digests, opts);
  assert.ok(r.ok && r.target.data === null);
});

test('the image name without its tag, also with a registry port', () => {
  assert.equal(imageName('127.0.0.1:5000/kade:v0.1.00'), '127.0.0.1:5000/kade');
  assert.equal(imageName('127.0.0.1:5000/kade'), '127.0.0.1:5000/kade');
  assert.equal(imageName('kade'), 'kade');
});

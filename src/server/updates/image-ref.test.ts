import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiHost, isLoopback, localDigestFor, parseImageRef, refKey, registryHostOf } from './image-ref.ts';

const D = `sha256:${'a'.repeat(64)}`;

test('Docker Hub short names get docker.io and library/', () => {
  assert.deepEqual(parseImageRef('nginx'), { registry: 'docker.io', repository: 'library/nginx', tag: 'latest', digest: null });
  assert.deepEqual(parseImageRef('nginx:1.27-alpine'), { registry: 'docker.io', repository: 'library/nginx', tag: '1.27-alpine', digest: null });
  assert.deepEqual(parseImageRef('linuxserver/sonarr:4'), { registry: 'docker.io', repository: 'linuxserver/sonarr', tag: '4', digest: null });
  assert.equal(parseImageRef('docker.io/library/nginx')?.repository, 'library/nginx');
  assert.equal(parseImageRef('index.docker.io/nginx')?.registry, 'docker.io');
  assert.equal(apiHost('docker.io'), 'registry-1.docker.io');
});

test('a first part with a dot, a port or localhost is a registry', () => {
  assert.deepEqual(parseImageRef('ghcr.io/owner/app:v1'), { registry: 'ghcr.io', repository: 'owner/app', tag: 'v1', digest: null });
  assert.deepEqual(parseImageRef('127.0.0.1:5000/kadetest/app'), { registry: '127.0.0.1:5000', repository: 'kadetest/app', tag: 'latest', digest: null });
  assert.deepEqual(parseImageRef('localhost/app:2'), { registry: 'localhost', repository: 'app', tag: '2', digest: null });
  assert.equal(apiHost('ghcr.io'), 'ghcr.io');
  assert.equal(refKey(parseImageRef('redis:7') ?? assert.fail()), 'docker.io/library/redis:7');
});

test('digests are kept; invalid references are refused', () => {
  assert.equal(parseImageRef(`nginx@${D}`)?.digest, D);
  assert.equal(parseImageRef(`nginx:1@${D}`)?.tag, '1');
  for (const bad of ['', 'Upper/Case', 'nginx:', 'nginx@sha256:zz', 'a//b', 'nginx:bad tag', '-x']) assert.equal(parseImageRef(bad), null, bad);
});

test('the local digest is the one recorded for the same repository', () => {
  const nginx = parseImageRef('nginx:1') ?? assert.fail();
  assert.equal(localDigestFor(nginx, [`nginx@${D}`]), D);
  assert.equal(localDigestFor(nginx, [`docker.io/library/nginx@${D}`]), D);
  assert.equal(localDigestFor(nginx, [`ghcr.io/x/nginx@${D}`]), null);
  assert.equal(localDigestFor(nginx, []), null);
  const local = parseImageRef('127.0.0.1:5000/kadetest/app:latest') ?? assert.fail();
  assert.equal(localDigestFor(local, [`other@${D}`, `127.0.0.1:5000/kadetest/app@${D}`]), D);
});

test('loopback registries and the host of REGISTRY_URL', () => {
  assert.ok(isLoopback('127.0.0.1:5000') && isLoopback('localhost:5000') && isLoopback('127.3.2.1'));
  assert.ok(!isLoopback('ghcr.io') && !isLoopback('10.0.0.1:5000'));
  assert.equal(registryHostOf('https://ghcr.io/owner'), 'ghcr.io');
  assert.equal(registryHostOf('127.0.0.1:5000'), '127.0.0.1:5000');
  assert.equal(registryHostOf('https://index.docker.io'), 'docker.io');
  assert.equal(registryHostOf(''), null);
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { engineSkip } from './engine.ts';
import { startRegistry } from './registry.ts';

const execFileP = promisify(execFile);
// Fails the file when the engine is missing, unless KADE_SKIP_ENGINE=1.
const skip = await engineSkip();
const SOURCE = 'kade-test/busybox:1';
const MANIFEST_TYPES = ['application/vnd.docker.distribution.manifest.v2+json', 'application/vnd.oci.image.manifest.v1+json'].join(', ');

async function docker(args: string[], input?: string): Promise<string> {
  const child = execFileP('docker', args, { timeout: 120_000 });
  if (input !== undefined) child.child.stdin?.end(input);
  return (await child).stdout.trim();
}

interface Manifest {
  config: { digest: string };
  layers: { digest: string }[];
}

test('pushes a local image and serves its manifest', { skip }, async (t) => {
  const registry = await startRegistry();
  t.after(() => registry.close());

  const ping = await fetch(`http://${registry.host}/v2/`);
  assert.equal(ping.status, 200);

  const ref = `${registry.host}/kadetest/busybox:1`;
  await docker(['tag', SOURCE, ref]);
  t.after(() => docker(['rmi', ref]));
  await docker(['push', ref]);

  const res = await fetch(`http://${registry.host}/v2/kadetest/busybox/manifests/1`, {
    headers: { Accept: MANIFEST_TYPES },
  });
  assert.equal(res.status, 200);
  assert.ok(res.headers.get('docker-content-digest')?.startsWith('sha256:'));
  const manifest = (await res.json()) as Manifest;
  assert.equal(manifest.config.digest, await docker(['image', 'inspect', '--format', '{{.Id}}', SOURCE]));
  assert.ok(manifest.layers.length >= 1);

  const tags = (await (await fetch(`http://${registry.host}/v2/kadetest/busybox/tags/list`)).json()) as {
    tags: string[];
  };
  assert.deepEqual(tags.tags, ['1']);
});

test('with htpasswd the registry needs the account', { skip }, async (t) => {
  const account = { user: 'kade', password: 'pa ss:w0rd' };
  const registry = await startRegistry({ htpasswd: account });
  t.after(() => registry.close());
  const basic = `Basic ${Buffer.from(`${account.user}:${account.password}`).toString('base64')}`;

  const anonymous = await fetch(`http://${registry.host}/v2/`);
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic realm="kade-test"/);
  const wrong = await fetch(`http://${registry.host}/v2/`, {
    headers: { Authorization: `Basic ${Buffer.from('kade:nope').toString('base64')}` },
  });
  assert.equal(wrong.status, 401);
  assert.equal((await fetch(`http://${registry.host}/v2/`, { headers: { Authorization: basic } })).status, 200);

  // Log in with a throwaway client config so the machine's ~/.docker stays untouched.
  const config = await mkdtemp(join(tmpdir(), 'kade-docker-config-'));
  t.after(() => rm(config, { recursive: true, force: true }));
  const ref = `${registry.host}/kadetest/private:1`;
  await docker(['tag', SOURCE, ref]);
  t.after(() => docker(['rmi', ref]));
  await assert.rejects(docker(['--config', config, 'push', ref]), /no basic auth credentials|unauthorized/i);
  await docker(['--config', config, 'login', '--username', account.user, '--password-stdin', registry.host], account.password);
  await docker(['--config', config, 'push', ref]);

  const res = await fetch(`http://${registry.host}/v2/kadetest/private/manifests/1`, {
    headers: { Accept: MANIFEST_TYPES, Authorization: basic },
  });
  assert.equal(res.status, 200);
  const manifest = (await res.json()) as Manifest;
  assert.equal(manifest.config.digest, await docker(['image', 'inspect', '--format', '{{.Id}}', SOURCE]));
});

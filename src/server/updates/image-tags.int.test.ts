import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { engineSkip } from '../../../test/helpers/engine.ts';
import { startRegistry } from '../../../test/helpers/registry.ts';
import { createDockerEngine } from '../engine/docker-engine.ts';
import { createImageTags, TAGS_TTL_MS } from './image-tags.ts';
import { createRegistryClient } from './registry-client.ts';

const execFileP = promisify(execFile);
// Fails the file when the engine is missing, unless KADE_SKIP_ENGINE=1.
const skip = await engineSkip();
const engine = createDockerEngine({ socketPath: '/var/run/docker.sock' });
const V1 = 'kade-test/busybox:1';
const V2 = 'kade-test/busybox:2';
const T = { skip, timeout: 120_000 };
/** Registry hosts this file pushed to: their `repo@digest` references on the test images go afterwards. */
const hosts: string[] = [];

async function docker(args: string[], env?: Record<string, string>, input?: string): Promise<string> {
  const child = execFileP('docker', args, { timeout: 120_000, ...(env ? { env: { ...process.env, ...env } } : {}) });
  if (input !== undefined) child.child.stdin?.end(input);
  return (await child).stdout.trim();
}

/** Pushes `source` as `repo:tag`; the local tag stays only with `keep`. */
async function push(source: string, repo: string, tag: string, opts: { env?: Record<string, string>; keep?: boolean } = {}): Promise<void> {
  await docker(['tag', source, `${repo}:${tag}`]);
  await docker(['push', `${repo}:${tag}`], opts.env);
  if (!opts.keep) await docker(['rmi', `${repo}:${tag}`]);
}

after(async () => {
  if (skip) return;
  const refs = (await docker(['images', '--digests', '--format', '{{.Repository}}:{{.Tag}}@{{.Digest}}'])).split('\n');
  for (const r of refs) {
    const [name = '', digest = ''] = r.split('@');
    if (!hosts.some((h) => name.startsWith(`${h}/kadetest/`))) continue;
    await docker(['rmi', name.endsWith(':<none>') ? `${name.slice(0, -':<none>'.length)}@${digest}` : name]).catch(() => undefined);
  }
});

/** Real fetch, with the URLs asked noted. */
function recordingFetch() {
  const urls: string[] = [];
  const fn = ((input: string | URL | Request, init?: RequestInit) => {
    urls.push(String(input));
    return fetch(input, init);
  }) as typeof fetch;
  return { urls, fn };
}

test('the registry lists the tags of the repository, newest first; cached ten minutes; a stopped registry falls back to local tags', T, async (t) => {
  const registry = await startRegistry();
  t.after(() => registry.close());
  hosts.push(registry.host);
  const repo = `${registry.host}/kadetest/tags`;
  await push(V1, repo, '1');
  await push(V2, repo, '2', { keep: true });
  await push(V2, repo, '10');
  await push(V2, repo, 'latest');

  let clock = Date.now();
  const rec = recordingFetch();
  const lookup = createImageTags({ engine, credentials: () => null, fetch: rec.fn, now: () => clock });
  const image = `${repo}:1`;
  assert.deepEqual(await lookup.tags(image), { image, current: '1', tags: ['latest', '10', '2', '1'], source: 'registry', note: null });
  assert.deepEqual(rec.urls, [`http://${registry.host}/v2/kadetest/tags/tags/list`]);

  await registry.close();
  assert.equal((await lookup.tags(`${repo}:2`)).source, 'registry', 'answered from the cache');
  assert.equal(rec.urls.length, 1, 'without asking the registry');

  clock += TAGS_TTL_MS + 1;
  const down = await lookup.tags(image);
  assert.equal(down.source, 'local');
  assert.deepEqual(down.tags, ['2'], 'the one tag of this repository the engine has');
  assert.match(down.note ?? '', new RegExp(`^${registry.host} not reachable: .*; these are the tags this host has$`));
});

// Debian's docker-registry (distribution 2.8) ignores `?n=` on tag lists and sends no Link pages;
// paging is covered against a fake registry in image-tags.test.ts.
test('the tag cap cuts the list short and says so; an unknown repository is a failure', T, async (t) => {
  const registry = await startRegistry();
  t.after(() => registry.close());
  hosts.push(registry.host);
  const repo = `${registry.host}/kadetest/capped`;
  for (const tag of ['1.0', '1.1', '2.0']) await push(V1, repo, tag);

  const client = createRegistryClient({ credentials: () => null });
  const ref = { registry: registry.host, repository: 'kadetest/capped' };
  const capped = await client.listTags(ref, { max: 2 });
  assert.equal(capped.ok && capped.tags.length, 2);
  assert.equal(capped.ok && capped.truncated, true);
  const all = await client.listTags(ref, { max: 3 });
  assert.deepEqual(all.ok && [[...all.tags].sort(), all.truncated], [['1.0', '1.1', '2.0'], false]);
  assert.deepEqual(await client.listTags({ registry: registry.host, repository: 'kadetest/none' }), {
    ok: false,
    reason: `${registry.host} has no repository kadetest/none`,
  });
  const lookup = createImageTags({ engine, credentials: () => null, maxTags: 2 });
  const cut = await lookup.tags(`${repo}:1.0`);
  assert.deepEqual([cut.source, cut.tags.length, cut.note], ['registry', 2, 'the registry lists more than 2 tags; these are the first it sent']);
  const none = await createImageTags({ engine, credentials: () => null }).tags(`${registry.host}/kadetest/none:1`);
  assert.deepEqual([none.source, none.tags, none.note], ['local', [], `${registry.host} has no repository kadetest/none; these are the tags this host has`]);
});

test('a registry with an account: without it or with a wrong token the local tags, with it the list (failures are not cached)', T, async (t) => {
  const account = { user: 'kade', password: 'registry-S3cret' };
  const registry = await startRegistry({ htpasswd: account });
  t.after(() => registry.close());
  hosts.push(registry.host);
  const config = await mkdtemp(join(tmpdir(), 'kade-test-docker-'));
  t.after(() => rm(config, { recursive: true, force: true }));
  const env = { DOCKER_CONFIG: config };
  await docker(['login', '--username', account.user, '--password-stdin', registry.host], env, account.password);
  const repo = `${registry.host}/kadetest/private`;
  await push(V1, repo, '1', { env });
  await push(V2, repo, '2', { env });

  let creds: { host: string; user: string; token: string } | null = null;
  const lookup = createImageTags({ engine, credentials: () => creds });
  const image = `${repo}:2`;
  assert.deepEqual(await lookup.tags(image), {
    image,
    current: '2',
    tags: [],
    source: 'local',
    note: `${registry.host} wants credentials; these are the tags this host has`,
  });
  creds = { host: registry.host, user: account.user, token: 'wrong' };
  assert.match((await lookup.tags(image)).note ?? '', /wants credentials that it refused/);
  creds = { host: 'other.example', user: account.user, token: account.password };
  assert.equal((await lookup.tags(image)).source, 'local', 'an account of another registry is not sent');
  creds = { host: registry.host, user: account.user, token: account.password };
  assert.deepEqual(await lookup.tags(image), { image, current: '2', tags: ['2', '1'], source: 'registry', note: null });
});

test('a locally built image lists the engine tags without asking a registry; an unreachable Docker Hub too', T, async () => {
  const rec = recordingFetch();
  const lookup = createImageTags({ engine, credentials: () => null, fetch: rec.fn, timeoutMs: 5_000 });
  assert.deepEqual(await lookup.tags(V1), {
    image: V1,
    current: '1',
    tags: ['2', '1'],
    source: 'local',
    note: 'the image was built or tagged on this host, not pulled from a registry; these are the tags this host has',
  });
  assert.equal(rec.urls.length, 0, 'no registry asked');

  // Not on this host, so Docker Hub is asked; here it cannot be reached (elsewhere it has no such repository).
  const hub = await lookup.tags('kade-test/busybox:3');
  assert.deepEqual([hub.current, hub.tags, hub.source], ['3', ['2', '1'], 'local']);
  assert.match(hub.note ?? '', /Docker Hub not reachable|docker\.io|Docker Hub has no repository/);
  assert.ok(rec.urls[0]?.startsWith('https://registry-1.docker.io/v2/kade-test/busybox/tags/list'));

  const pinned = await lookup.tags(`kade-test/busybox@sha256:${'0'.repeat(64)}`);
  assert.equal(pinned.current, null, 'a digest without a tag names no tag');
  assert.deepEqual(await lookup.tags('Not An/Image'), {
    image: 'Not An/Image',
    current: null,
    tags: [],
    source: 'local',
    note: "'Not An/Image' is not a valid image reference",
  });
});

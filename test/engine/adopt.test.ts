import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { useEngineSuite } from '../helpers/engine-suite.ts';
import { fingerprint } from '../helpers/fingerprint.ts';

// An app started by hand with compose, outside Kade, taken under management: operated, edited through
// the editors' refusals, and let go again, while its folder stays exactly as the user left it.
const execFileP = promisify(execFile);
const suite = useEngineSuite();
/** compose v1 drops the dashes of a folder name; v2 keeps them. The tests read the name Kade chose. */
const FOLDER = 'kadetest-outside';
let dir = '';
let name = '';

async function composeCli(args: string[]): Promise<void> {
  await execFileP('docker-compose', args, { cwd: dir, timeout: 120_000 });
}

async function status(): Promise<string | undefined> {
  const r = await suite.api.get<{ name: string; status: string }[]>('/api/stacks');
  return r.body.find((s) => s.name === name)?.status;
}

async function job(method: string, path: string): Promise<{ state: string; log: string[] }> {
  const r = await suite.api.call<{ job: { id: string } }>(method, path);
  assert.equal(r.status, 202, `${method} ${path}: ${JSON.stringify(r.body)}`);
  return suite.api.waitJob(r.body.job.id);
}

test('an app is started by hand with compose in a folder below BASE_DIR', async () => {
  dir = join(suite.kade.baseDir, 'outside', FOLDER);
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(
    join(dir, 'docker-compose.yml'),
    [
      'services:',
      '  app:',
      '    image: kade-test/busybox:1',
      '    init: true',
      '    command: ["sh", "-c", "echo $$GREETING > /data/greeting; exec sleep 3600"]',
      '    environment:',
      '      GREETING: ${GREETING}',
      '    volumes:',
      '      - ./data:/data',
      '    labels:',
      '      kade.test: "1"',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, '.env'), 'GREETING=hello from outside\n', { mode: 0o640 });
  await composeCli(['up', '-d']);
  const { stdout } = await execFileP('docker-compose', ['ps', '-q'], { cwd: dir, timeout: 60_000 });
  assert.equal(stdout.trim().split('\n').filter(Boolean).length, 1);
});

after(async () => {
  if (dir) await composeCli(['down']).catch(() => undefined);
});

test('a folder Kade cannot see is refused with where it must be; a folder without compose file too', async () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'kade-elsewhere-'));
  writeFileSync(join(elsewhere, 'docker-compose.yml'), 'services:\n  a:\n    image: kade-test/busybox:1\n');
  try {
    for (const path of [elsewhere, '/var/lib/definitely-missing']) {
      const r = await suite.api.post('/api/stacks/adopt', { path });
      assert.equal(r.status, 400, path);
      assert.equal(r.body.code, 'path_unreachable');
      assert.match(r.body.detail, /below BASE_DIR/);
      assert.equal(r.body.params.base, suite.kade.baseDir);
    }
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
  const empty = join(suite.kade.baseDir, 'outside', 'empty');
  mkdirSync(empty, { recursive: true });
  const r = await suite.api.post('/api/stacks/adopt', { path: empty });
  assert.equal(r.status, 400);
  assert.match(r.body.detail, /no compose file/);
  assert.equal((await suite.api.post('/api/stacks/adopt', { path: 'relative/path' })).status, 400);
});

test('adopt takes the running app under management without touching its folder', async () => {
  const before = fingerprint(dir);
  const r = await suite.api.post('/api/stacks/adopt', { path: dir });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  name = r.body.name;
  assert.match(name, /^kadetest-?outside$/);
  assert.equal(r.body.adopted, true);
  assert.equal(r.body.status, 'running', 'the containers the user started are the app');
  assert.ok(lstatSync(join(suite.kade.baseDir, 'stacks', name)).isSymbolicLink(), 'the stack folder is a reference');
  assert.deepEqual(fingerprint(dir), before, 'nothing in the folder changed');
  assert.ok(!existsSync(join(dir, '.svc.json')));

  const again = await suite.api.post('/api/stacks/adopt', { path: dir, name: 'second-name' });
  assert.equal(again.status, 409, 'one folder, one app');
  const audit = await suite.api.get<{ entries: { action: string; target: string }[] }>('/api/audit?action=adopt');
  assert.ok(audit.body.entries.some((e) => e.target === name));
});

test('the adopted app is operated with its own project: stop, start and restart reuse its containers', async () => {
  const before = fingerprint(dir);
  const ids = async () => (await suite.api.get<{ containers: { id: string }[] }>(`/api/stacks/${name}`)).body.containers.map((c) => c.id);
  const first = await ids();
  assert.equal(first.length, 1);
  for (const [op, expected] of [
    ['stop', 'stopped'],
    ['start', 'running'],
    ['restart', 'running'],
  ] as const) {
    const j = await job('POST', `/api/stacks/${name}/${op}`);
    assert.equal(j.state, 'succeeded', `${op}: ${j.log.join('\n')}`);
    assert.equal(await status(), expected, op);
  }
  assert.deepEqual(await ids(), first, 'no second set of containers');
  const containers = await suite.api.get<{ name: string; stack: string | null; managed: boolean }[]>('/api/containers');
  assert.ok(containers.body.some((c) => c.stack === name && c.managed));
  // The data the app wrote is the user's own bind mount; compose left the definition files alone.
  assert.deepEqual(
    fingerprint(dir).filter((l) => !l.startsWith('/data/')),
    before.filter((l) => !l.startsWith('/data/')),
  );
  const cfg = await suite.api.get(`/api/stacks/${name}/config`);
  assert.equal(cfg.body.adopted, true);
  assert.equal(cfg.body.schema, null);
  assert.equal(cfg.body.schema_missing, 'adopted');
  const rc = await suite.api.post(`/api/stacks/${name}/reconfigure`, { values: {} });
  assert.equal(rc.status, 409, 'no template to re-render');
  const compose = await suite.api.get(`/api/stacks/${name}/compose`);
  assert.match(compose.body.content, /kade-test\/busybox:1/);
});

test('an adopted app joins a shared network and leaves it without a byte written into its folder', async () => {
  const net = 'kadetest-adopt-lan';
  const created = await suite.api.post('/api/networks', { name: net, subnet: '10.251.11.0/24' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const before = fingerprint(dir).filter((l) => !l.startsWith('/data/'));
  const networksOf = async () => {
    const id = (await suite.api.get<{ containers: { id: string }[] }>(`/api/stacks/${name}`)).body.containers[0]?.id ?? '';
    const { stdout } = await execFileP('docker', ['inspect', '--format', '{{json .NetworkSettings.Networks}}', id], { timeout: 30_000 });
    return Object.keys(JSON.parse(stdout) as Record<string, unknown>);
  };
  const join1 = await suite.api.post<{ job: { id: string } }>(`/api/stacks/${name}/connect`, { network: net, services: ['app'], ip: '10.251.11.40' });
  assert.equal(join1.status, 202, JSON.stringify(join1.body));
  const j = await suite.api.waitJob(join1.body.job.id);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  const joined = await networksOf();
  assert.ok(joined.includes(net), `on ${net}: ${joined.join(', ')}`);
  assert.ok(
    joined.some((n) => n !== net),
    'and still on its own default network',
  );
  assert.deepEqual(
    fingerprint(dir).filter((l) => !l.startsWith('/data/')),
    before,
    'the user folder is untouched',
  );
  const cfg = await suite.api.get(`/api/stacks/${name}/config`);
  assert.deepEqual(cfg.body.networks, [net]);

  const leave = await suite.api.post<{ job: { id: string } }>(`/api/stacks/${name}/connect`, { network: net, disconnect: true });
  const l = await suite.api.waitJob(leave.body.job.id);
  assert.equal(l.state, 'succeeded', l.log.join('\n'));
  assert.ok(!(await networksOf()).includes(net));
  assert.deepEqual(
    fingerprint(dir).filter((x) => !x.startsWith('/data/')),
    before,
  );
  assert.equal((await suite.api.del(`/api/networks/${net}`)).status, 204);
});

test('deleting an adopted app removes only the reference: folder and containers stay', async () => {
  const before = fingerprint(dir);
  const refused = await suite.api.call('DELETE', `/api/stacks/${name}?remove_data=1`);
  assert.equal(refused.status, 400, "an adopted app's data is never removed");
  const j = await job('DELETE', `/api/stacks/${name}`);
  assert.equal(j.state, 'succeeded', j.log.join('\n'));
  assert.equal(existsSync(join(suite.kade.baseDir, 'stacks', name)), false);
  assert.equal(await status(), undefined);
  assert.deepEqual(fingerprint(dir), before, 'the folder is untouched');
  assert.ok(statSync(join(dir, 'docker-compose.yml')).isFile());
  const { stdout } = await execFileP('docker-compose', ['ps', '-q'], { cwd: dir, timeout: 60_000 });
  assert.equal(stdout.trim().split('\n').filter(Boolean).length, 1, 'the container still exists');
});

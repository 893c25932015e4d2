import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { contains } from '../../src/shared/cidr.ts';
import { ApiClient } from '../helpers/client.ts';
import { useEngineSuite } from '../helpers/engine-suite.ts';

// Shared networks on the real engine (issue 13): a bridge with its own subnet, two apps that join it and
// reach each other by name, an own address the engine refuses (files back byte for byte), a macvlan
// network on a dummy (or veth) interface the test makes, and an address a host neighbour holds. The tests build on each other.
const execFileP = promisify(execFile);
const A = 'kadetest-net-a';
const B = 'kadetest-net-b';
const BRIDGE = 'kadetest-lan1';
const SUBNET = '10.251.7.0/24';
const MACVLAN = 'kadetest-mv1';
const DUMMY = 'kadetestdum0';
const suite = useEngineSuite();

const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();
const ip = async (args: string[]) => execFileP('ip', args, { timeout: 10_000 });
const stackFiles = (name: string) => ['docker-compose.yml', '.svc.json'].map((f) => readFileSync(join(suite.kade.baseDir, 'stacks', name, f)));

after(async () => {
  await ip(['link', 'del', DUMMY]).catch(() => undefined);
});

async function job(path: string, body: unknown): Promise<{ state: string; log: string[]; error: string | null }> {
  const r = await suite.api.post<{ job: { id: string } }>(path, body);
  assert.equal(r.status, 202, `${path}: ${JSON.stringify(r.body)}`);
  return suite.api.waitJob(r.body.job.id, 180_000);
}

async function containerOf(name: string): Promise<{ id: string; name: string }> {
  const r = await suite.api.get<{ containers: { id: string; name: string; service: string }[] }>(`/api/stacks/${name}`);
  const c = r.body.containers.find((x) => x.service === 'web');
  assert.ok(c, `${name} has a web container: ${JSON.stringify(r.body)}`);
  return c;
}

/** The container's networks with its address on each, as the engine says. */
async function networksOf(name: string): Promise<Record<string, string>> {
  const id = (await containerOf(name)).id;
  const nets = JSON.parse(await docker(['inspect', '--format', '{{json .NetworkSettings.Networks}}', id])) as Record<string, { IPAddress: string }>;
  return Object.fromEntries(Object.entries(nets).map(([n, v]) => [n, v.IPAddress]));
}

test('installed apps get their project network from Kade’s own pool, not from the engine’s default pools', async () => {
  await suite.api.addSyncedRepo('basic', suite.git.url('basic'));
  for (const [name, port] of [
    [A, 18231],
    [B, 18232],
  ] as const) {
    const r = await job('/api/store/install', { repo: 'basic', app: 'hello', name, values: { port, message: name } });
    assert.equal(r.state, 'succeeded', r.log.join('\n'));
    const subnet = await docker(['network', 'inspect', '--format', '{{(index .IPAM.Config 0).Subnet}}', `${name}_default`]);
    assert.ok(contains('10.200.0.0/16', subnet.split('/')[0] ?? ''), `${name}_default has ${subnet}, a block of SVC_APP_SUBNET_POOL`);
    assert.equal(subnet.split('/')[1], '26');
  }
});

test('a bridge network is created with a normalised subnet and listed with the warning of what was made of the input', async () => {
  const review = await suite.api.post('/api/networks/review', { subnet: '10.251.7.77/24', gateway: '', range: '', interface: '' });
  assert.equal(review.status, 200, JSON.stringify(review.body));
  assert.equal(review.body.ok, true);
  assert.equal(review.body.normalised.subnet, SUBNET);
  assert.ok(
    review.body.warnings.some((w: { code: string }) => w.code === 'subnet_normalised'),
    JSON.stringify(review.body.warnings),
  );

  const bad = await suite.api.post('/api/networks', { name: 'kadetest-bad', subnet: '10.251.7.0/33' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'network_invalid');

  const r = await suite.api.post('/api/networks', { name: BRIDGE, subnet: '10.251.7.77/24' });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.network.subnet, SUBNET);
  assert.equal(r.body.network.driver, 'bridge');
  assert.ok(r.body.warnings.some((w: { code: string }) => w.code === 'subnet_normalised'));
  assert.equal(await docker(['network', 'inspect', '--format', '{{(index .IPAM.Config 0).Subnet}}', BRIDGE]), SUBNET);

  // The engine's own copy of the subnet now overlaps: a second network on it is refused with the reason.
  const overlap = await suite.api.post('/api/networks/review', { subnet: '10.251.7.128/25' });
  assert.ok(
    overlap.body.errors.some((e: { code: string }) => e.code === 'overlaps_engine'),
    JSON.stringify(overlap.body),
  );

  const list = await suite.api.get('/api/networks');
  const mine = list.body.networks.find((n: { name: string }) => n.name === BRIDGE);
  assert.equal(mine.kind, 'app');
  assert.equal(mine.exists, true);
  const settings = await suite.api.get('/api/settings');
  assert.ok(settings.body.APP_NETWORKS.includes(BRIDGE), 'the network is one of APP_NETWORKS');
});

test('two apps on one shared network reach each other by container name; members and config say so', async () => {
  const ja = await job(`/api/stacks/${A}/connect`, { network: BRIDGE });
  assert.equal(ja.state, 'succeeded', ja.log.join('\n'));
  const jb = await job(`/api/stacks/${B}/connect`, { network: BRIDGE, services: ['web'], ip: '10.251.7.50' });
  assert.equal(jb.state, 'succeeded', jb.log.join('\n'));

  assert.equal((await networksOf(B))[BRIDGE], '10.251.7.50');
  assert.ok((await networksOf(A))[BRIDGE], 'A is on the network');
  assert.ok(Object.keys(await networksOf(A)).includes(`${A}_default`), 'A keeps its own project network');

  const target = (await containerOf(B)).name;
  const ping = await docker(['exec', (await containerOf(A)).id, 'ping', '-c', '1', '-W', '3', target]);
  assert.match(ping, /1 packets received/, ping);

  const cfg = await suite.api.get(`/api/stacks/${B}/config`);
  assert.deepEqual(cfg.body.networks, [BRIDGE]);
  assert.deepEqual(cfg.body.services.find((s: { name: string }) => s.name === 'web').networks, [{ network: BRIDGE, ip: '10.251.7.50' }]);
  const list = await suite.api.get('/api/networks');
  const members = list.body.networks
    .find((n: { name: string }) => n.name === BRIDGE)
    .members.map((m: { stack: string }) => m.stack)
    .sort();
  assert.deepEqual(members, [A, B]);

  const check = await suite.api.get(`/api/networks/${BRIDGE}/ip-check?ip=10.251.7.50`);
  assert.equal(check.body.free, false);
  assert.ok(
    check.body.reasons.some((x: { code: string }) => x.code === 'in_use_engine'),
    JSON.stringify(check.body),
  );
  assert.ok(check.body.proposal && check.body.proposal !== '10.251.7.50', JSON.stringify(check.body));
  // A network apps are on stays in the settings: dropping it from APP_NETWORKS is refused naming them.
  const drop = await suite.api.put('/api/settings', { APP_NETWORKS: [] });
  assert.equal(drop.status, 409, JSON.stringify(drop.body));
  assert.equal(drop.body.code, 'network_in_use');
  assert.match(drop.body.detail, new RegExp(`${A}, ${B}`));
  const outside = await suite.api.get(`/api/networks/${BRIDGE}/ip-check?ip=10.9.9.9`);
  assert.equal(outside.body.free, false);
  assert.equal(outside.body.reasons[0].code, 'outside_subnet');
});

test('an own address the engine refuses leaves every file as it was, byte for byte, and the app on its old address', async () => {
  const taken = (await networksOf(A))[BRIDGE];
  assert.ok(taken);
  const before = stackFiles(B);
  const j = await job(`/api/stacks/${B}/connect`, { network: BRIDGE, services: ['web'], ip: taken });
  assert.equal(j.state, 'failed', j.log.join('\n'));
  assert.match(j.log.join('\n'), /failed/);
  assert.match(j.log.join('\n'), /the files are as they were/);
  assert.deepEqual(stackFiles(B), before);
  assert.equal((await networksOf(B))[BRIDGE], '10.251.7.50');

  // Reconfigure re-applies the network and the own address from .svc.json.
  const r = await job(`/api/stacks/${B}/reconfigure`, { values: { message: 'again' } });
  assert.equal(r.state, 'succeeded', r.log.join('\n'));
  assert.equal((await networksOf(B))[BRIDGE], '10.251.7.50');
});

test('a network in use cannot be deleted; after both leave it, it can', async () => {
  const refused = await suite.api.del(`/api/networks/${BRIDGE}`);
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'network_in_use');
  assert.match(refused.body.params.stacks, new RegExp(`${A}.*${B}`));
  for (const name of [A, B]) {
    const j = await job(`/api/stacks/${name}/connect`, { network: BRIDGE, disconnect: true });
    assert.equal(j.state, 'succeeded', j.log.join('\n'));
    assert.equal((await networksOf(name))[BRIDGE], undefined);
  }
  const gone = await suite.api.del(`/api/networks/${BRIDGE}`);
  assert.equal(gone.status, 204, JSON.stringify(gone.body));
  await assert.rejects(docker(['network', 'inspect', BRIDGE]));
});

test('a network on a host interface is macvlan; an address a host neighbour holds is not free', async () => {
  // A dummy interface where the kernel has the module; else one end of a veth pair (sandboxed kernels).
  await ip(['link', 'add', DUMMY, 'type', 'dummy']).catch(() => ip(['link', 'add', DUMMY, 'type', 'veth', 'peer', 'name', `${DUMMY}p`]));
  await ip(['link', 'set', DUMMY, 'up']);
  await ip(['addr', 'add', '10.251.9.1/24', 'dev', DUMMY]);
  await ip(['neigh', 'add', '10.251.9.200', 'lladdr', '02:00:00:00:00:c8', 'dev', DUMMY, 'nud', 'permanent']);

  const r = await suite.api.post('/api/networks', {
    name: MACVLAN,
    subnet: '10.251.9.0/24',
    gateway: '10.251.9.1',
    range: '10.251.9.192/26',
    interface: DUMMY,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.network.driver, 'macvlan');
  assert.equal(await docker(['network', 'inspect', '--format', '{{.Driver}} {{index .Options "parent"}}', MACVLAN]), `macvlan ${DUMMY}`);

  const check = await suite.api.get(`/api/networks/${MACVLAN}/ip-check?ip=10.251.9.200`);
  assert.equal(check.status, 200, JSON.stringify(check.body));
  assert.equal(check.body.free, false);
  const arp = check.body.reasons.find((x: { code: string }) => x.code === 'in_use_host_arp');
  assert.ok(arp, JSON.stringify(check.body));
  assert.equal(arp.params.mac, '02:00:00:00:00:c8');
  assert.ok(check.body.proposal, 'a free address is proposed');
  assert.notEqual(check.body.proposal, '10.251.9.200');
  assert.ok(contains('10.251.9.192/26', check.body.proposal), `${check.body.proposal} lies in the range`);
  const free = await suite.api.get(`/api/networks/${MACVLAN}/ip-check?ip=${check.body.proposal}`);
  assert.equal(free.body.free, true, JSON.stringify(free.body));

  const gone = await suite.api.del(`/api/networks/${MACVLAN}`);
  assert.equal(gone.status, 204);
});

test('a network the engine has but Kade does not is listed and can be taken over; the host network is detected', async () => {
  const outsider = 'kadetest-outsider';
  await docker(['network', 'create', '--label', 'kade.test=1', '--subnet', '10.251.12.0/24', outsider]);
  const list = await suite.api.get('/api/networks');
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.equal(list.body.networks.find((n: { name: string }) => n.name === outsider)?.kind, 'engine');
  assert.ok(!list.body.networks.some((n: { name: string }) => n.name === `${A}_default`), 'project networks of apps are not offered');
  assert.equal(list.body.host_error, null);
  assert.equal(typeof list.body.host?.interface, 'string', JSON.stringify(list.body.host));
  assert.match(list.body.host.subnet, /^\d+\.\d+\.\d+\.\d+\/\d+$/);

  const taken = await suite.api.post('/api/networks', { name: outsider, take_over: true });
  assert.equal(taken.status, 201, JSON.stringify(taken.body));
  assert.equal(taken.body.network.kind, 'app');
  assert.equal(taken.body.network.subnet, '10.251.12.0/24');
  const again = await suite.api.get('/api/networks');
  assert.equal(again.body.networks.find((n: { name: string }) => n.name === outsider)?.kind, 'app');
  assert.equal((await suite.api.del(`/api/networks/${outsider}`)).status, 204);
  await assert.rejects(docker(['network', 'inspect', outsider]));
});

test('viewers and operators may look but not create or delete networks', async () => {
  for (const role of ['viewer', 'operator'] as const) {
    const made = await suite.api.post('/api/users', { name: `net-${role}`, password: 'correct-horse-battery-2', role });
    assert.equal(made.status, 201, JSON.stringify(made.body));
  }
  for (const role of ['viewer', 'operator'] as const) {
    const c = new ApiClient(suite.kade.url);
    await c.loginAs(`net-${role}`, 'correct-horse-battery-2');
    assert.equal((await c.get('/api/networks')).status, 200);
    assert.equal((await c.post('/api/networks', { name: 'kadetest-nope', subnet: '10.251.13.0/24' })).status, 403);
    assert.equal((await c.post('/api/networks/review', { subnet: '10.251.13.0/24' })).status, role === 'viewer' ? 403 : 200);
    assert.equal((await c.post(`/api/stacks/${A}/connect`, { network: 'kadetest-nope' })).status, role === 'viewer' ? 403 : 404);
  }
});

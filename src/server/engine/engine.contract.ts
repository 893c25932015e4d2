/**
 * The Engine's contract: one set of cases that the fake (fake-engine.test.ts, unit tier) and the Docker adapter on a
 * real daemon (test/engine/engine-contract.test.ts, for every endpoint it is given) both pass. Where they disagree the
 * real engine is right and the fake is fixed. Each case makes its own containers and networks, labelled and named
 * for this run, and removes them afterwards through the engine under test.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { contractCase, freePort, readUntil, rejectsWith, readAll as text, until, within } from '../../../test/engine/contract-helpers.ts';
import { overlaps } from '../../shared/cidr.ts';
import { sinceOf } from './docker-events.ts';
import { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, type ContainerEvent, type ContainerSpec, type Engine } from './engine.ts';

export interface EngineTarget {
  engine: Engine;
  /** The same kind of engine at an endpoint nobody answers on. */
  unreachable: Engine;
  /** An image the engine has, with busybox's sh, echo, cat, id, sleep and tail. */
  image: string;
}

/** Label every resource of the cases carries (the engine tier's cleanup removes what a crashed run left). */
export const CONTRACT_LABEL = 'kade.test';

/** What one case made, named for this run, and removed after it. */
function scope(t: EngineTarget) {
  const run = randomBytes(4).toString('hex');
  const networks: string[] = [];
  const volumes: string[] = [];
  const project = `kadetest-contract-${run}`;
  const labels = { [CONTRACT_LABEL]: '1', 'kade.test.contract': run };
  return {
    run,
    project,
    labels,
    compose: (service: string) => ({ [COMPOSE_PROJECT_LABEL]: project, [COMPOSE_SERVICE_LABEL]: service }),
    name: (what: string) => `kadetest-${what}-${run}`,
    /** A container of the busybox image, sleeping unless told otherwise. */
    container(what: string, spec: Partial<ContainerSpec> = {}): Promise<string> {
      return t.engine.createContainer({
        image: t.image,
        cmd: ['sleep', '300'],
        name: `kadetest-${what}-${run}`,
        ...spec,
        labels: { ...labels, ...spec.labels },
      });
    },
    network(name: string) {
      networks.push(name);
      return name;
    },
    volume(name: string) {
      volumes.push(name);
      return name;
    },
    async cleanup() {
      for (const c of await t.engine.listContainers()) if (c.labels['kade.test.contract'] === run) await t.engine.removeContainer(c.id);
      for (const n of networks) await t.engine.removeNetwork(n);
      for (const v of volumes) await t.engine.removeVolume(v);
    },
  };
}

type Scope = ReturnType<typeof scope>;

/** Declares the cases for `name`; `target` is asked once per case (the fake makes a new engine each time). */
export function engineContract(name: string, target: () => Promise<EngineTarget> | EngineTarget): void {
  const each = contractCase(name, target, scope, 60_000);
  containerCases(each);
  logCases(each);
  refusalCases(each);
  execCases(each);
  runCases(each);
  eventCases(each);
  resourceCases(each);
}

type Each = (title: string, body: (t: EngineTarget, s: Scope) => Promise<void>) => void;
const stateOf = async (t: EngineTarget, id: string) => (await t.engine.listContainers({ ids: [id] }))[0];

function containerCases(each: Each): void {
  each('ping answers the engine and API version', async (t) => {
    const info = await t.engine.ping();
    assert.match(info.version, /^\d+\.\d+/);
    assert.match(info.apiVersion, /^1\.\d+$/);
  });

  each('a created container is listed with its name, image, labels, compose project and service; the filters find it', async (t, s) => {
    const id = await s.container('web', { labels: s.compose('web') });
    const plain = await s.container('plain');
    const c = await stateOf(t, id);
    assert.ok(c, 'listed by its id');
    assert.deepEqual([c.name, c.image, c.state, c.project, c.service, c.health], [s.name('web'), t.image, 'created', s.project, 'web', null]);
    assert.equal(c.labels['kade.test.contract'], s.run);
    assert.deepEqual(
      (await t.engine.listContainers({ project: s.project })).map((x) => x.id),
      [id],
    );
    const composed = (await t.engine.listContainers({ composeOnly: true })).map((x) => x.id);
    assert.ok(composed.includes(id) && !composed.includes(plain));
    assert.ok((await t.engine.listContainers()).some((x) => x.id === plain));
    assert.deepEqual(await t.engine.listContainers({ project: `${s.project}-none` }), []);
  });

  each('start, stop and restart change the state; starting a running one and stopping a stopped one are no-ops', async (t, s) => {
    const id = await s.container('cycle');
    await t.engine.startContainer(id);
    await t.engine.startContainer(id);
    const running = await stateOf(t, id);
    assert.equal(running?.state, 'running');
    assert.match(running?.status ?? '', /^Up /);
    const info = (await t.engine.inspectContainer(id)) as { Name: string; State: { Running: boolean }; Config: { Labels: Record<string, string> } };
    assert.deepEqual([info.Name, info.State.Running, info.Config.Labels['kade.test.contract']], [`/${s.name('cycle')}`, true, s.run]);
    await t.engine.stopContainer(id);
    await t.engine.stopContainer(id);
    assert.equal((await stateOf(t, id))?.state, 'exited');
    await t.engine.restartContainer(id);
    assert.equal((await stateOf(t, id))?.state, 'running', 'a restart starts a stopped container');
    await t.engine.removeContainer(id);
    assert.equal(await stateOf(t, id), undefined, 'removed while running');
  });
}

function logCases(each: Each): void {
  each('a container whose command ends exits with its code, and its log holds both streams, each in order', async (t, s) => {
    const id = await s.container('ends', { cmd: ['sh', '-c', 'echo one; echo two >&2; echo three; exit 3'] });
    await t.engine.startContainer(id);
    const c = await until(
      'the container exited',
      () => stateOf(t, id),
      (x) => x?.state === 'exited',
    );
    assert.match(c?.status ?? '', /^Exited \(3\)/);
    // The engine orders one stream's lines, not stdout's against stderr's.
    const lines = (await text(await t.engine.containerLogs(id, {}))).split('\n');
    assert.deepEqual(
      lines.filter((l) => l !== 'two'),
      ['one', 'three', ''],
    );
    assert.ok(lines.includes('two'), 'the stderr line is in the log');
    assert.match(await text(await t.engine.containerLogs(id, { tail: 1 })), /^(two|three)\n$/);
    assert.match(await text(await t.engine.containerLogs(id, { tail: 1, timestamps: true })), /^\d{4}-\d\d-\d\dT[\d:.]+Z (two|three)\n$/);
  });

  each('a followed log streams a line written after the call and ends when the container is removed', async (t, s) => {
    const id = await s.container('follow', { cmd: ['sh', '-c', 'echo ready; sleep 300'] });
    await t.engine.startContainer(id);
    await until(
      'the first line',
      async () => text(await t.engine.containerLogs(id, {})),
      (x) => x === 'ready\n',
    );
    const stream = await t.engine.containerLogs(id, { follow: true, tail: 0 });
    const marker = `marker-${s.run}`;
    const seen = readUntil(stream, marker, 10_000);
    await t.engine.exec(id, { cmd: ['sh', '-c', `echo ${marker} > /proc/1/fd/1`] });
    assert.equal(await seen, `${marker}\n`);
    const ended = new Promise<void>((r) => stream.once('end', () => r()));
    stream.resume();
    await t.engine.removeContainer(id);
    await ended;
  });
}

function refusalCases(each: Each): void {
  each('an unknown container is not_found for every operation; a name taken or an image missing refuses the create', async (t, s) => {
    const missing = `kadetest-missing-${s.run}`;
    // One at a time: a rejection must not wait unhandled while an earlier call is awaited.
    for (const call of [
      () => t.engine.inspectContainer(missing),
      () => t.engine.startContainer(missing),
      () => t.engine.stopContainer(missing),
      () => t.engine.restartContainer(missing),
      () => t.engine.removeContainer(missing),
      () => t.engine.containerLogs(missing, {}),
      () => t.engine.exec(missing, { cmd: ['true'] }),
    ]) {
      await rejectsWith(call(), 'not_found');
    }
    await s.container('taken');
    await rejectsWith(s.container('taken'), 'conflict');
    const err = await rejectsWith(t.engine.createContainer({ image: `kadetest/absent-${s.run}:1`, cmd: ['true'], labels: s.labels }), 'not_found');
    assert.deepEqual(err.params, { what: 'image', name: `kadetest/absent-${s.run}:1` });
  });

  each('published and exposed ports are listed while the container runs', async (t, s) => {
    const port = await freePort();
    const id = await s.container('ports', { expose: ['8080/tcp'], publish: [{ port: '80/tcp', hostIp: '127.0.0.1', hostPort: port }] });
    await t.engine.startContainer(id);
    const ports = [...((await stateOf(t, id))?.ports ?? [])].sort((a, b) => a.container_port - b.container_port);
    assert.deepEqual(ports, [
      { host_ip: '127.0.0.1', host_port: port, container_port: 80, protocol: 'tcp' },
      { host_ip: null, host_port: null, container_port: 8080, protocol: 'tcp' },
    ]);
  });

  each('an engine that does not answer is engine_unreachable', async (t) => {
    await rejectsWith(t.unreachable.ping(), 'engine_unreachable');
    await rejectsWith(t.unreachable.listContainers(), 'engine_unreachable');
  });
}

function execCases(each: Each): void {
  each('exec gives stdout, stderr and the exit code; env, stdin and user reach the command', async (t, s) => {
    const id = await s.container('exec');
    await t.engine.startContainer(id);
    assert.deepEqual(await t.engine.exec(id, { cmd: ['sh', '-c', 'echo out; echo err >&2; exit 3'] }), { exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
    const r = await t.engine.exec(id, { cmd: ['sh', '-c', 'echo $SECRET; cat'], env: ['SECRET=s3cret'], stdin: 'from stdin' });
    assert.deepEqual(r, { exitCode: 0, stdout: 's3cret\nfrom stdin', stderr: '' });
    assert.equal((await t.engine.exec(id, { cmd: ['id', '-u'], user: '65534' })).stdout, '65534\n');
  });

  each('exec in a stopped container is a conflict that names it', async (t, s) => {
    const id = await s.container('stopped');
    const err = await rejectsWith(t.engine.exec(id, { cmd: ['true'] }), 'conflict');
    assert.deepEqual(err.params, { name: s.name('stopped'), state: 'not running' });
  });

  each('execStream pipes stdin through the command and gives the exit code and stderr once the output was read', async (t, s) => {
    const id = await s.container('stream');
    await t.engine.startContainer(id);
    const piped = await t.engine.execStream(id, { cmd: ['cat'], stdin: Readable.from([Buffer.from('a'.repeat(100_000)), Buffer.from('end\n')]) });
    assert.equal(await text(piped.stdout), `${'a'.repeat(100_000)}end\n`);
    assert.deepEqual(await piped.done, { exitCode: 0, stderr: '' });
    const failing = await t.engine.execStream(id, { cmd: ['sh', '-c', 'echo out; echo err >&2; exit 4'] });
    assert.equal(await text(failing.stdout), 'out\n');
    assert.deepEqual(await failing.done, { exitCode: 4, stderr: 'err\n' });
  });
}

function runCases(each: Each): void {
  each('runContainer gives the output and exit code of a short-lived container and removes it', async (t, s) => {
    const spec = { image: t.image, labels: s.labels, network: 'none', powers: 'none' as const, readOnlyRoot: true };
    const out = await t.engine.runContainer({ ...spec, cmd: ['sh', '-c', 'echo out; echo err >&2; exit 2'] }, { timeoutMs: 20_000 });
    assert.deepEqual(out, { exitCode: 2, stdout: 'out\n', stderr: 'err\n' });
    const auto = await t.engine.runContainer({ ...spec, cmd: ['echo', 'auto'], autoRemove: true }, { timeoutMs: 20_000 });
    assert.deepEqual(auto, { exitCode: 0, stdout: 'auto\n', stderr: '' });
    assert.equal(await t.engine.runContainer({ ...spec, cmd: ['echo', '0123456789'] }, { timeoutMs: 20_000, outputLimit: 4 }).then((r) => r.stdout), '0123');
    const left = async () => (await t.engine.listContainers()).filter((c) => c.labels['kade.test.contract'] === s.run);
    await until('no container is left', left, (l) => l.length === 0);
  });

  each('runContainer past its time-out fails with reason timeout and removes the container; a missing image is not_found', async (t, s) => {
    const spec = { image: t.image, labels: s.labels, network: 'none' };
    const err = await rejectsWith(t.engine.runContainer({ ...spec, cmd: ['sleep', '30'] }, { timeoutMs: 1000 }), 'engine_unreachable');
    assert.equal(err.params.reason, 'timeout');
    assert.deepEqual(
      (await t.engine.listContainers()).filter((c) => c.labels['kade.test.contract'] === s.run),
      [],
    );
    const missing = await rejectsWith(t.engine.runContainer({ ...spec, image: `kadetest/absent-${s.run}:1`, cmd: ['true'] }, { timeoutMs: 1000 }), 'not_found');
    assert.equal(missing.params.what, 'image');
  });
}

function eventCases(each: Each): void {
  each('the event stream sends the changes of compose containers with name, labels and exit code, and replays from `since`', async (t, s) => {
    const actions = ['create', 'start', 'die', 'destroy'];
    const stream = await t.engine.containerEvents({ actions });
    const got: ContainerEvent[] = [];
    const reading = (async () => {
      for await (const e of stream.events) {
        if (e.labels['kade.test.contract'] !== s.run) continue;
        got.push(e);
        if (e.action === 'destroy') return;
      }
    })();
    await s.container('plain', { cmd: ['true'] });
    const id = await s.container('events', { cmd: ['sh', '-c', 'exit 2'], labels: s.compose('web') });
    await t.engine.startContainer(id);
    await until(
      'the container exited',
      () => stateOf(t, id),
      (c) => c?.state === 'exited',
    );
    await t.engine.removeContainer(id);
    await within('the destroy event', reading);
    stream.close();
    assert.deepEqual(
      got.map((e) => [e.action, e.id, e.name, e.labels[COMPOSE_PROJECT_LABEL]]),
      actions.map((a) => [a, id, s.name('events'), s.project]),
    );
    assert.equal(got.find((e) => e.action === 'die')?.exitCode, 2);
    const start = got.find((e) => e.action === 'start') as ContainerEvent;
    const replay = await t.engine.containerEvents({ actions: ['start', 'destroy'], since: sinceOf(start.timeNano) });
    const replayed: string[] = [];
    await within(
      'the replay from since',
      (async () => {
        for await (const e of replay.events) {
          if (e.labels['kade.test.contract'] !== s.run) continue;
          replayed.push(e.action);
          if (e.action === 'destroy') break;
        }
      })(),
    );
    replay.close();
    assert.deepEqual(replayed, ['start', 'destroy'], 'since is inclusive');
  });
}

/** A /24 in 10.0.0.0/8 that no network of the engine overlaps. */
async function freeSubnet(t: EngineTarget): Promise<string> {
  const taken = (await t.engine.listNetworks()).flatMap((n) => n.subnets.map((x) => x.subnet));
  for (let i = 0; ; i++) {
    const candidate = `10.${200 + (i % 50)}.${randomBytes(1)[0]}.0/24`;
    if (!taken.some((x) => overlaps(x, candidate))) return candidate;
  }
}

function resourceCases(each: Each): void {
  each('a network is listed with its plan; a taken name or an overlapping subnet is refused; in use it stays; gone it is fine', async (t, s) => {
    const subnet = await freeSubnet(t);
    const name = s.network(s.name('net'));
    const spec = { name, driver: 'bridge' as const, subnet, gateway: null, range: null, parent: null, labels: s.labels };
    await t.engine.createNetwork(spec);
    const listed = (await t.engine.listNetworks()).find((n) => n.name === name);
    assert.deepEqual([listed?.driver, listed?.subnets.map((x) => x.subnet), listed?.labels['kade.test.contract']], ['bridge', [subnet], s.run]);
    await rejectsWith(t.engine.createNetwork(spec), 'name_taken');
    await rejectsWith(t.engine.createNetwork({ ...spec, name: s.network(s.name('net2')) }), 'network_invalid');
    const id = await s.container('on-net', { network: name });
    await t.engine.startContainer(id);
    const ip = (await stateOf(t, id))?.networks?.[name];
    assert.match(ip ?? '', /^10\./, 'the container has an address on the network');
    await rejectsWith(t.engine.removeNetwork(name), 'network_in_use');
    await rejectsWith(t.engine.removeNetwork('bridge'), 'network_in_use');
    await t.engine.removeContainer(id);
    await t.engine.removeNetwork(name);
    await t.engine.removeNetwork(name);
    assert.equal(
      (await t.engine.listNetworks()).find((n) => n.name === name),
      undefined,
    );
  });

  each('an image is inspected by reference with its tags; a missing one is null; a pull the registry refuses fails', async (t, s) => {
    const image = await t.engine.inspectImage(t.image);
    assert.match(image?.id ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.ok(Array.isArray(image?.repoDigests));
    const colon = t.image.lastIndexOf(':');
    assert.ok((await t.engine.listImageTags(t.image.slice(0, colon))).includes(t.image.slice(colon + 1)));
    assert.equal(await t.engine.inspectImage(`kadetest/absent-${s.run}:1`), null);
    await rejectsWith(t.engine.pullImage(`127.0.0.1:1/kadetest-absent-${s.run}:1`), 'registry_unreachable');
  });

  each('a volume in use is a conflict; removed, or never there, it is fine; a project lists only its own', async (t, s) => {
    const volume = s.volume(s.name('vol'));
    const id = await s.container('vol', { mounts: [{ type: 'volume', source: volume, target: '/data' }] });
    assert.deepEqual(await t.engine.listVolumes({ project: s.project }), []);
    await rejectsWith(t.engine.removeVolume(volume), 'conflict');
    await t.engine.removeContainer(id);
    await t.engine.removeVolume(volume);
    await t.engine.removeVolume(volume);
  });
}

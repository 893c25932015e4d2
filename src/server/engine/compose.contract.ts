/**
 * The Compose port's contract: one set of cases that the fake (fake-compose.test.ts, unit tier, over the fake engine)
 * and the CLI adapter over a real daemon (test/engine/compose-contract.test.ts, for every endpoint it is given) both
 * pass. Where they disagree the real one is right and the fake is fixed. Each case writes its projects to a temp
 * folder of its own (a space in its path: no shell ever splits it), names them `kadetest-…`, labels every service
 * `kade.test`, and takes them down afterwards.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contractCase, rejectsWith, until } from '../../../test/engine/contract-helpers.ts';
import type { EngineEndpoint } from '../config/config.ts';
import type { Compose, ComposeProject } from './compose.ts';
import { dockerHostOf } from './compose-errors.ts';
import { COMPOSE_PROJECT_LABEL, COMPOSE_SERVICE_LABEL, COMPOSE_WORKDIR_LABEL, type Engine } from './engine.ts';

export interface ComposeTarget {
  /** The compose under test, for `endpoint`. */
  compose: Compose;
  endpoint: EngineEndpoint;
  /** The engine at the same endpoint, to see what compose did. */
  engine: Engine;
  /** The same kind of compose for an endpoint where no engine answers. */
  unreachable: { compose: Compose; endpoint: EngineEndpoint };
  /** An image the engine has, with busybox's sh, echo and sleep. */
  image: string;
}

/** Label every service of the cases carries (the engine tier's cleanup removes what a crashed run left). */
export const CONTRACT_LABEL = 'kade.test';
/** What compose may hand its CLI besides nothing: never a variable of Kade's own. */
const COMPOSE_KEYS = ['PATH', 'LANG', 'LC_ALL', 'DOCKER_HOST', 'COMPOSE_INTERACTIVE_NO_CLI', 'SETUPTOOLS_USE_DISTUTILS'];

/** The projects one case made, in a folder of its own, taken down and removed after it. */
function scope(t: ComposeTarget) {
  const run = randomBytes(3).toString('hex');
  const dir = mkdtempSync(join(tmpdir(), 'kade compose-contract-'));
  const made: ComposeProject[] = [];
  const service = (name: string, extra = '', image = t.image) =>
    `  ${name}:\n    image: ${image}\n    init: true\n    command: [sh, -c, "echo started; sleep 300"]\n    labels:\n      ${CONTRACT_LABEL}: "1"\n${extra}`;
  return {
    service,
    /** A project `kadetest-<tag>-<run>` with its compose file (and `.env` when given). */
    project(tag: string, yaml = `services:\n${service('web')}${service('worker')}`, env?: string): ComposeProject {
      const pdir = join(dir, tag);
      const file = join(pdir, 'docker-compose.yml');
      mkdirSync(pdir, { recursive: true });
      writeFileSync(file, yaml);
      if (env !== undefined) writeFileSync(join(pdir, '.env'), env);
      const p = { name: `kadetest-${tag}-${run}`, dir: pdir, file };
      made.push(p);
      return p;
    },
    write(p: ComposeProject, yaml: string, file = p.file) {
      writeFileSync(file, yaml);
    },
    name: (what: string) => `kadetest-${what}-${run}`,
    async cleanup() {
      for (const p of made) await t.compose.down(p, { volumes: true }).catch(() => undefined);
      for (const p of made) for (const c of await t.engine.listContainers({ project: p.name })) await t.engine.removeContainer(c.id);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Scope = ReturnType<typeof scope>;
type Each = (title: string, body: (t: ComposeTarget, s: Scope) => Promise<void>) => void;

const states = async (t: ComposeTarget, p: ComposeProject) => (await t.engine.listContainers({ project: p.name })).map((c) => c.state).sort();
const idsBy = async (t: ComposeTarget, p: ComposeProject) =>
  Object.fromEntries((await t.engine.listContainers({ project: p.name })).map((c) => [c.service ?? '', c.id]));
const networksOf = async (t: ComposeTarget, p: ComposeProject) =>
  (await t.engine.listNetworks()).filter((n) => n.labels[COMPOSE_PROJECT_LABEL] === p.name).map((n) => n.name);

/** Declares the cases for `name`; `target` is asked once per case (the fake makes a new engine each time). */
export function composeContract(name: string, target: () => Promise<ComposeTarget> | ComposeTarget): void {
  const each = contractCase(name, target, scope, 120_000);
  fileCases(each);
  lifeCases(each);
  resourceCases(each);
  failureCases(each);
}

function fileCases(each: Each): void {
  each('validate accepts a good file and names what is wrong in a bad one', async (t, s) => {
    await t.compose.validate(s.project('valid'));
    const types = await rejectsWith(t.compose.validate(s.project('types', 'services:\n  a:\n    image: 1\n    ports: "x"\n')), 'compose_invalid');
    assert.match(types.message, /ports/);
    assert.match(types.message, /invalid type|must be/);
    const top = await rejectsWith(t.compose.validate(s.project('top', `services:\n${s.service('web')}bogus: {}\n`)), 'compose_invalid');
    assert.match(top.message, /bogus/);
    const key = await rejectsWith(t.compose.validate(s.project('key', `services:\n${s.service('web', '    bogus_key: 1\n')}`)), 'compose_invalid');
    assert.match(key.message, /bogus_key/);
    const noImage = await rejectsWith(t.compose.validate(s.project('noimage', 'services:\n  a:\n    command: [sleep, "1"]\n')), 'compose_invalid');
    assert.match(noImage.message, /image/);
    await rejectsWith(t.compose.validate(s.project('yaml', 'services:\n  a: [\n')), 'compose_invalid');
    const gone = s.project('gone');
    rmSync(gone.file);
    await rejectsWith(t.compose.validate(gone), 'compose_invalid');
  });

  each('values come from .env under compose’s own environment: a required one missing is refused, Kade’s own variables are never seen', async (t, s) => {
    const yaml = `services:\n${s.service('web', '    environment:\n      - GREETING=${GREETING:?say hello}\n')}`;
    const missing = await rejectsWith(t.compose.validate(s.project('noenv', yaml)), 'compose_invalid');
    assert.match(missing.message, /say hello/);
    await t.compose.validate(s.project('env', yaml, 'GREETING=hello\n'));
    process.env.KADE_CONTRACT_OWN = 'kade';
    try {
      const own = `services:\n${s.service('web', '    environment:\n      - OWN=${KADE_CONTRACT_OWN:?not given to compose}\n')}`;
      assert.match((await rejectsWith(t.compose.validate(s.project('own', own)), 'compose_invalid')).message, /not given to compose/);
    } finally {
      delete process.env.KADE_CONTRACT_OWN;
    }
  });

  each('environment() is compose’s own map: the endpoint’s DOCKER_HOST and nothing of Kade’s', async (t) => {
    const env = t.compose.environment();
    assert.equal(env.DOCKER_HOST, dockerHostOf(t.endpoint));
    assert.deepEqual(
      Object.keys(env).filter((k) => !COMPOSE_KEYS.includes(k)),
      [],
    );
    assert.equal(t.unreachable.compose.environment().DOCKER_HOST, dockerHostOf(t.unreachable.endpoint));
    assert.match(await t.compose.variant(), /^v[12]$/);
  });
}

function lifeCases(each: Each): void {
  each('up makes a network and a running container per service with compose’s labels; stop, start, restart and down drive them', async (t, s) => {
    const p = s.project('life');
    let output = '';
    await t.compose.up(p, { onOutput: (chunk) => (output += chunk) });
    assert.deepEqual(await states(t, p), ['running', 'running']);
    assert.match(output, new RegExp(`${p.name}[-_]web[-_]1`), output);
    const [web] = (await t.engine.listContainers({ project: p.name })).filter((c) => c.service === 'web');
    assert.equal(web?.labels[CONTRACT_LABEL], '1');
    assert.equal(web?.labels[COMPOSE_SERVICE_LABEL], 'web');
    assert.equal(web?.labels[COMPOSE_WORKDIR_LABEL], p.dir);
    assert.deepEqual(await networksOf(t, p), [`${p.name}_default`]);

    await t.compose.stop(p);
    assert.deepEqual(await states(t, p), ['exited', 'exited']);
    await t.compose.start(p);
    assert.deepEqual(await states(t, p), ['running', 'running']);
    const started = async () => {
      const log = await t.engine.containerLogs(web?.id ?? '', { tail: 50 });
      let text = '';
      for await (const chunk of log) text += chunk.toString();
      return text.split('\n').filter((l) => l.includes('started')).length;
    };
    const before = await until('the start after the stop logged', started, (n) => n >= 2);
    await t.compose.restart(p);
    assert.deepEqual(await states(t, p), ['running', 'running']);
    await until('the restart starts the service anew', started, (n) => n > before);

    await t.compose.down(p);
    assert.deepEqual(await states(t, p), []);
    assert.deepEqual(await networksOf(t, p), []);
  });

  each('up again leaves unchanged services alone, recreates a changed one and removes one taken out of the file', async (t, s) => {
    const p = s.project('again');
    await t.compose.up(p);
    const first = await idsBy(t, p);
    await t.compose.up(p);
    assert.deepEqual(await idsBy(t, p), first, 'nothing changed, nothing recreated');
    s.write(p, `services:\n${s.service('web', '    environment:\n      - CHANGED=1\n')}${s.service('worker')}`);
    await t.compose.up(p);
    const second = await idsBy(t, p);
    assert.notEqual(second.web, first.web, 'the changed service is recreated');
    assert.equal(second.worker, first.worker, 'the other one stays');
    s.write(p, `services:\n${s.service('web', '    environment:\n      - CHANGED=1\n')}`);
    await t.compose.up(p);
    assert.deepEqual(Object.keys(await idsBy(t, p)), ['web'], 'the orphan is removed');
    assert.deepEqual(await states(t, p), ['running']);
  });

  each('down of a project that never ran is fine; stop too; start of one without containers fails compose_failed', async (t, s) => {
    const p = s.project('never');
    await t.compose.down(p);
    await t.compose.stop(p);
    await rejectsWith(t.compose.start(p), 'compose_failed');
    assert.deepEqual(await states(t, p), []);
  });

  each('an override file adds to the project: its service runs beside the others', async (t, s) => {
    const p = s.project('over', `services:\n${s.service('web')}`);
    const extra = join(p.dir, 'extra.yml');
    s.write(p, `services:\n${s.service('sidecar')}`, extra);
    const both = { ...p, overrides: [extra] };
    await t.compose.validate(both);
    await t.compose.up(both);
    assert.deepEqual(Object.keys(await idsBy(t, both)).sort(), ['sidecar', 'web']);
    await t.compose.down(both);
  });
}

function resourceCases(each: Each): void {
  each('named volumes carry the project: down keeps them, down with volumes removes them', async (t, s) => {
    const p = s.project('vol', `services:\n${s.service('web', '    volumes: ["data:/data", "./here:/here"]\n')}volumes:\n  data:\n`);
    await t.compose.up(p);
    assert.deepEqual(await t.engine.listVolumes({ project: p.name }), [`${p.name}_data`]);
    await t.compose.down(p);
    assert.deepEqual(await t.engine.listVolumes({ project: p.name }), [`${p.name}_data`]);
    await t.compose.down(p, { volumes: true });
    assert.deepEqual(await t.engine.listVolumes({ project: p.name }), []);
  });

  each('an external network must exist: up names it when it does not, and joins it when it does', async (t, s) => {
    const shared = s.name('shared');
    const yaml = `services:\n${s.service('web', '    networks: [shared]\n')}networks:\n  shared:\n    external: true\n    name: ${shared}\n`;
    const p = s.project('ext', yaml);
    const err = await rejectsWith(t.compose.up(p), 'compose_failed');
    assert.match(err.message, new RegExp(shared));
    await t.engine.createNetwork({ name: shared, driver: 'bridge', subnet: null, gateway: null, range: null, parent: null, labels: { [CONTRACT_LABEL]: '1' } });
    try {
      await t.compose.up(p);
      const [web] = await t.engine.listContainers({ project: p.name });
      assert.ok(web?.networks && shared in web.networks, JSON.stringify(web?.networks));
      await t.compose.down(p);
      assert.ok(
        (await t.engine.listNetworks()).some((n) => n.name === shared),
        'down leaves an external network',
      );
    } finally {
      await t.compose.down(p).catch(() => undefined);
      await t.engine.removeNetwork(shared);
    }
  });

  each('a service on its default network and an external one is on both; taken out of the file, it leaves the external one', async (t, s) => {
    const shared = s.name('both');
    const p = s.project(
      'both',
      `services:\n${s.service('web', '    networks: [default, shared]\n')}networks:\n  shared:\n    external: true\n    name: ${shared}\n`,
    );
    await t.engine.createNetwork({ name: shared, driver: 'bridge', subnet: null, gateway: null, range: null, parent: null, labels: { [CONTRACT_LABEL]: '1' } });
    const on = async () => Object.keys((await t.engine.listContainers({ project: p.name }))[0]?.networks ?? {}).sort();
    try {
      await t.compose.up(p);
      assert.deepEqual(await on(), [`${p.name}_default`, shared].sort());
      s.write(p, `services:\n${s.service('web')}`);
      await t.compose.up(p);
      assert.deepEqual(await on(), [`${p.name}_default`]);
    } finally {
      await t.compose.down(p).catch(() => undefined);
      await t.engine.removeNetwork(shared);
    }
  });
}

function failureCases(each: Each): void {
  each('an image neither local nor pullable fails up (and pull) soon with compose_failed naming it, and leaves no container', async (t, s) => {
    const p = s.project('nope', `services:\n${s.service('web', '', `${t.image.split(':')[0]}:nope`)}`);
    const started = Date.now();
    const err = await rejectsWith(t.compose.up(p, { timeoutMs: 60_000 }), 'compose_failed');
    assert.ok(Date.now() - started < 60_000, 'it does not run into the timeout');
    assert.match(err.message, new RegExp(`compose up of '${p.name}' failed: `));
    assert.match(err.message, /:nope|pull|no such host|not found/i);
    assert.deepEqual(await states(t, p), []);
    assert.match((await rejectsWith(t.compose.pull(p, { timeoutMs: 60_000 }), 'compose_failed')).message, /compose pull of/);
  });

  each('where no engine answers, runs fail engine_unreachable naming its DOCKER_HOST; validate still judges the file', async (t, s) => {
    const p = s.project('noengine');
    const u = t.unreachable;
    await u.compose.validate(p);
    for (const run of [() => u.compose.up(p), () => u.compose.down(p), () => u.compose.stop(p)]) {
      const err = await rejectsWith(run(), 'engine_unreachable');
      assert.ok(err.message.includes(dockerHostOf(u.endpoint)), err.message);
      assert.equal(err.params.stack, p.name);
    }
  });
}

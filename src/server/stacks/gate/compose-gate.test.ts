import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import { AppError } from '../../core/errors.ts';
import type { Actor, DomainEvent } from '../../core/events.ts';
import type { ComposeProject } from '../../engine/compose.ts';
import { createFakeCompose, type FakeCompose } from '../../engine/fake-compose.ts';
import { createFakeEngine } from '../../engine/fake-engine.ts';
import { diskIO } from '../store/disk-io.ts';
import { createSeals } from '../store/file-seal.ts';
import { createComposeGate } from './compose-gate.ts';

const admin: Actor = { user: 'ada', role: 'admin', ip: '' };
const operator: Actor = { user: 'otto', role: 'operator', ip: '' };
const root = mkdtempSync(join(tmpdir(), 'kade-gate-unit-'));
const lib = join(root, 'stacks');
const data = join(root, 'appdata');
after(() => rmSync(root, { recursive: true, force: true }));

/** The shared fake compose over a fake engine that has the image the apps use; `ran` is what it was asked to run. */
function recordingCompose(): FakeCompose & { ran: () => string[] } {
  const engine = createFakeEngine();
  engine.addImage('x');
  const compose = createFakeCompose({ endpoint: { socketPath: '/var/run/docker.sock' }, engine, env: { PATH: '/usr/bin' } });
  return Object.assign(compose, { ran: () => compose.calls.map((c) => `${c.op} ${c.project}`) });
}

let events: DomainEvent[];
let raw: ReturnType<typeof recordingCompose>;
let gate: ReturnType<typeof createComposeGate>;

function app(name: string, compose: string, env = ''): ComposeProject {
  const dir = join(lib, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'docker-compose.yml'), compose);
  writeFileSync(join(dir, '.env'), env);
  return { name, stack: name, dir, file: join(dir, 'docker-compose.yml') };
}

const refusal = async (work: Promise<unknown>): Promise<AppError> => {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err;
  }
  assert.fail('not refused');
};

beforeEach(() => {
  rmSync(lib, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
  mkdirSync(data, { recursive: true });
  events = [];
  raw = recordingCompose();
  gate = createComposeGate({
    compose: raw,
    io: diskIO(),
    seals: createSeals(diskIO(), join(root, 'seals', String(Math.random()))),
    binds: { dataDir: data, libraryDir: lib, stateDir: join(root, 'state'), backupDir: join(root, 'backups'), engineSocket: null, allowedHostDirs: () => [] },
    allowPrivileged: () => 'admins',
    events: { emit: (e: DomainEvent) => events.push(e), subscribe: () => () => undefined },
    clock: () => new Date(0),
  });
});

const PLAIN = 'services:\n  app:\n    image: x\n    volumes: ["./data:/data"]\n';

describe('the compose gate', () => {
  test('files Kade sealed run; a file changed afterwards is refused naming it, audited and notified, and compose never runs', async () => {
    const p = app('a', PLAIN);
    gate.seal(p, operator);
    await gate.compose.up(p, { actor: operator });
    writeFileSync(p.file, `${PLAIN}    privileged: true\n`);
    const err = await refusal(gate.compose.restart(p, { actor: admin }));
    assert.equal(err.code, 'stack_files_refused');
    assert.equal(err.params.file, p.file);
    assert.deepEqual(raw.ran(), ['up a']);
    assert.deepEqual(
      events.map((e) => e.type),
      ['stack.files_refused', 'notify.security_refusal'],
    );
  });

  test('files nobody sealed are not run until an admin accepts them', async () => {
    const p = app('b', PLAIN);
    assert.equal((await refusal(gate.compose.up(p, { actor: admin }))).params.reason, 'not_accepted');
    assert.throws(() => gate.accept(p, operator), /admin/);
    gate.accept(p, admin);
    await gate.compose.up(p, { actor: operator });
    assert.deepEqual(raw.ran(), ['up b']);
  });

  test('powers an admin set up stay usable by an operator; the same powers written by no admin are refused', async () => {
    const p = app('c', 'services:\n  app:\n    image: x\n    cap_add: [NET_ADMIN]\n');
    gate.seal(p, admin);
    await gate.compose.restart(p, { actor: operator });
    gate.seal(p, operator);
    assert.equal((await refusal(gate.compose.restart(p, { actor: operator }))).code, 'app_powers_refused');
  });

  test('values are judged as compose resolves them: compose settings in .env refused, a default never taken from Kade', async () => {
    const p = app('d', PLAIN, 'COMPOSE_PROJECT_NAME=other\n');
    gate.seal(p, admin);
    const err = await refusal(gate.compose.up(p, { actor: admin }));
    assert.equal(err.params.reason, 'env_key');
    // The shell map compose gets holds PATH: `${PATH}` resolves to it, and the policy refuses the bind it makes.
    const q = app('e', 'services:\n  app:\n    image: x\n    volumes: ["${PATH}:/p"]\n');
    gate.seal(q, operator);
    assert.equal((await refusal(gate.compose.up(q, { actor: operator }))).code, 'forbidden_path');
  });

  test('a bind source that became a link after the seal is refused right before the run', async () => {
    const p = app('f', 'services:\n  app:\n    image: x\n    volumes: ["./data:/data", "./cache:/cache"]\n');
    mkdirSync(join(p.dir, 'data'));
    gate.seal(p, operator);
    await gate.compose.up(p, { actor: operator });
    // A link within the allowed folder (to / the allow list refuses it first, without saying what is there).
    symlinkSync(join(p.dir, 'data'), join(p.dir, 'cache'));
    const err = await refusal(gate.compose.up(p, { actor: operator }));
    assert.equal(err.params.reason, 'link');
    assert.equal(err.params.path, join(p.dir, 'cache'));
  });

  test('stop and down are judged too, and validate judges files not yet sealed', async () => {
    const p = app('g', 'services:\n  app:\n    image: x\n    volumes: ["./:/stack"]\n');
    assert.equal((await refusal(gate.compose.validate(p, { actor: admin }))).params.reason, 'own_files');
    assert.equal((await refusal(gate.compose.stop(p, { actor: admin }))).params.reason, 'own_files');
    assert.equal((await refusal(gate.compose.down(p, { actor: admin }))).params.reason, 'own_files');
    assert.deepEqual(raw.ran(), []);
  });

  test('an app found unsealed at start is sealed at its first run when it passes; one made later is not', async () => {
    const g = createComposeGate({
      compose: raw,
      io: diskIO(),
      seals: createSeals(diskIO(), join(root, 'seals-before')),
      binds: { dataDir: data, libraryDir: lib, stateDir: join(root, 'state'), backupDir: join(root, 'backups'), engineSocket: null, allowedHostDirs: () => [] },
      allowPrivileged: () => 'admins',
      events: { emit: () => undefined, subscribe: () => () => undefined },
      clock: () => new Date(0),
      fromBefore: (name) => name === 'old',
    });
    const old = app('old', PLAIN);
    await g.compose.up(old, { actor: operator });
    writeFileSync(old.file, `${PLAIN}    privileged: true\n`);
    assert.equal((await refusal(g.compose.up(old, { actor: admin }))).params.reason, 'changed');
    const later = app('later', PLAIN);
    assert.equal((await refusal(g.compose.up(later, { actor: admin }))).params.reason, 'not_accepted');
  });

  test('an app from before seals: sealed as found when it passes the rules no role changes, else left for an admin', () => {
    const ok = app('h', 'services:\n  app:\n    image: x\n    cap_add: [NET_ADMIN]\n');
    assert.equal(gate.sealFromBefore(ok), null);
    assert.equal(gate.verdict(ok), null);
    const bad = app('i', 'services:\n  app:\n    image: x\n    volumes: ["./:/stack"]\n');
    assert.equal(gate.sealFromBefore(bad)?.params.reason, 'own_files');
    assert.equal(gate.verdict(bad)?.params.reason, 'own_files');
  });
});

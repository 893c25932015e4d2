import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../core/logger.ts';
import type { ContainerSummary } from './engine.ts';
import { createFakeEngine } from './fake-engine.ts';
import { createFleet } from './fleet.ts';

const logger = createLogger('silent');

const container = (id: string, state: string): ContainerSummary => ({
  id,
  name: id,
  image: 'busybox',
  state,
  status: state,
  health: null,
  ports: [],
  labels: { 'com.docker.compose.project': 'app' },
  project: 'app',
  service: id,
  workingDir: null,
  created: 0,
});

/** The shared fake engine; `listings()` names the listings Kade asked for: `all`, or `ids:a,b`. */
function fakeEngine() {
  const engine = createFakeEngine();
  const listings = () =>
    engine.calls
      .filter((c) => c.method === 'listContainers')
      .map((c) => {
        const ids = (c.args[0] as { ids?: string[] } | undefined)?.ids;
        return ids ? `ids:${ids.join(',')}` : 'all';
      });
  return { engine, listings };
}

async function until(what: string, ok: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`never happened: ${what}`);
}

const states = async (fleet: { list(): Promise<ContainerSummary[]> }) =>
  (await fleet.list())
    .map((c) => `${c.id}:${c.state}`)
    .sort()
    .join(' ');

/** A started fleet over a fake engine holding container `a` (running), filled before `body` runs; stopped after. */
async function withFilledFleet(opts: { relistMs?: number }, body: (f: ReturnType<typeof fakeEngine>, fleet: ReturnType<typeof createFleet>) => Promise<void>) {
  const f = fakeEngine();
  f.engine.put(container('a', 'running'));
  const fleet = createFleet({ engine: f.engine, logger, ...opts });
  fleet.start();
  try {
    await until('the model is filled', () => fleet.current());
    await body(f, fleet);
  } finally {
    fleet.stop();
  }
}

test('once filled, the model answers lists without asking the engine, and an event updates just that container', async () => {
  const f = fakeEngine();
  f.engine.put(container('a', 'running'));
  f.engine.put(container('b', 'exited'));
  const fleet = createFleet({ engine: f.engine, logger, batchMs: 1 });
  fleet.start();
  try {
    await until('the model is filled', () => fleet.current());
    const before = f.listings().length;
    for (let i = 0; i < 20; i++) assert.equal(await states(fleet), 'a:running b:exited');
    assert.equal(f.listings().length, before, 'no listing for answers from the model');

    f.engine.put(container('b', 'running'));
    f.engine.push({ action: 'start', name: 'b', id: 'b' });
    await until('the start of b shows', async () => (await states(fleet)) === 'a:running b:running');
    assert.deepEqual(f.listings().slice(before), ['ids:b']);

    await f.engine.removeContainer('a');
    await until('a is gone', async () => (await states(fleet)) === 'b:running');
  } finally {
    fleet.stop();
  }
});

test('while the event stream is down every list asks the engine; after the reconnect the model is listed anew', async () => {
  const f = fakeEngine();
  f.engine.put(container('a', 'running'));
  const fleet = createFleet({ engine: f.engine, logger, batchMs: 1, backoff: { firstMs: 5, maxMs: 20 } });
  fleet.start();
  try {
    await until('the model is filled', () => fleet.current());
    f.engine.cut();
    const streamBack = f.engine.failOn('containerEvents');
    await until('the model is dropped', () => !fleet.current());
    // A change while the stream is down, with no event for it: a live listing sees it.
    f.engine.put(container('a', 'exited'));
    const before = f.listings().length;
    assert.equal(await states(fleet), 'a:exited');
    assert.equal(f.listings().length, before + 1, 'one live listing');

    streamBack();
    await until('the model is filled again', () => fleet.current());
    f.engine.put(container('c', 'running'));
    f.engine.push({ action: 'create', name: 'c', id: 'c' });
    await until('c shows', async () => (await states(fleet)) === 'a:exited c:running');
  } finally {
    fleet.stop();
  }
});

test("invalidate (Kade's own change) makes the next list wait for a full listing", () =>
  withFilledFleet({}, async (f, fleet) => {
    // Changed without an event having arrived yet: Kade's own job just stopped it.
    f.engine.put(container('a', 'exited'));
    assert.equal(await states(fleet), 'a:running', 'the model has not heard of it');
    fleet.invalidate();
    assert.equal(await states(fleet), 'a:exited');
    assert.equal(fleet.current(), true);
  }));

test('an engine that cannot be reached fails the list as a live listing would', async () => {
  const f = fakeEngine();
  f.engine.down(true);
  const fleet = createFleet({ engine: f.engine, logger, backoff: { firstMs: 5, maxMs: 20 } });
  fleet.start();
  try {
    await assert.rejects(fleet.list(), /ECONNREFUSED/);
  } finally {
    fleet.stop();
  }
});

test('a safety-net listing that finds only newer status texts keeps the version; one that finds a change moves it', () =>
  withFilledFleet({ relistMs: 10 }, async (f, fleet) => {
    const version = fleet.version();
    // The engine's text ages ("Up 2 minutes"), nothing else: callers' caches stay valid.
    f.engine.put({ ...container('a', 'running'), status: 'Up 3 minutes' });
    const listings = f.listings().length;
    await until('two more full listings ran', () => f.listings().length >= listings + 2);
    assert.equal(fleet.version(), version);
    assert.equal((await fleet.list())[0]?.status, 'Up 3 minutes', 'the model still holds the newest listing');
    // A change no event told of: the next listing moves the version.
    f.engine.put(container('a', 'exited'));
    await until('the version moved', () => fleet.version() !== version && fleet.version() !== null);
    assert.equal(await states(fleet), 'a:exited');
  }));

test("after invalidate (Kade's own change, maybe only of files) the version moves even when the containers did not", () =>
  withFilledFleet({}, async (_f, fleet) => {
    const version = fleet.version();
    fleet.invalidate();
    assert.equal(fleet.version(), null, 'no version while a full listing is due');
    await fleet.list();
    assert.notEqual(fleet.version(), null);
    assert.notEqual(fleet.version(), version);
  }));

test("a list after Kade's own change never answers with a listing asked before it", async () => {
  await withFilledFleet({}, async (f, fleet) => {
    fleet.invalidate();
    const release = f.engine.hold('listContainers');
    // A listing asked before the change, still on its way (a slow engine, a list of 1000 containers).
    const asked = f.listings().length;
    const early = fleet.list();
    await until('the early listing is asked', () => f.listings().length > asked);
    f.engine.put(container('a', 'exited'));
    fleet.invalidate();
    const after = fleet.list();
    release();
    assert.equal((await early)[0]?.state, 'running', 'the early listing answers with what the engine had then');
    assert.equal((await after)[0]?.state, 'exited', 'the list asked after the change shows it');
    assert.equal(await states(fleet), 'a:exited', 'and so does the model');
  });
});

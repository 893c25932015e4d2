// Issue #12, class "load": 200 concurrent API clients while 50 followed log streams run on chatty
// containers; a stalled log reader is cut off instead of buffered; a reader that leaves closes its
// engine stream. Real Kade (in this process), real engine, local images only.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FOLLOW_LIMITS } from '../../src/server/http/sse.ts';
import { ApiClient } from '../helpers/client.ts';
import { cleanupLabelled, requireEngine } from '../helpers/engine.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { apiLoad, CHATTY, FLOOD, type Follower, follow, runTalker, stalledReader, until, writeChattyApp } from './load-kit.ts';

const PASSWORD = 'correct-horse-battery';
const TALKERS = ['kadetest-load-a', 'kadetest-load-b', 'kadetest-load-c', 'kadetest-load-d', 'kadetest-load-e'];
const FLOODER = 'kadetest-load-flood';
const APP = 'kadetest-load-app';
// The real cap; deadlines short enough for a test (30 s and 5 s in production).
const LIMITS = { ...FOLLOW_LIMITS, stallMs: 2_000, closeGraceMs: 1_000 };
const MB = 1024 * 1024;
/** Generous: four stalled readers may hold 4 × (1 MiB + socket buffers); an unbounded buffer passes it within seconds. */
const RSS_BOUND = 150 * MB;

let kade: TestServer;
let admin: ApiClient;
let viewer: ApiClient;

before(async () => {
  await requireEngine();
  await cleanupLabelled();
  await Promise.all(TALKERS.map((name) => runTalker(name, CHATTY)));
  kade = await startTestServer({ kade: { follow: LIMITS } });
  admin = new ApiClient(kade.url);
  await admin.loginAs('admin', PASSWORD);
  assert.equal((await admin.post('/api/users', { name: 'viewer', password: PASSWORD, role: 'viewer' })).status, 201);
  viewer = new ApiClient(kade.url);
  await viewer.loginAs('viewer', PASSWORD);
  writeChattyApp(kade.baseDir, APP);
  await admin.acceptFiles(APP);
  const start = await admin.post(`/api/stacks/${APP}/start`);
  assert.equal(start.status, 202, JSON.stringify(start.body));
  const job = await admin.waitJob(start.body.job.id);
  assert.equal(job.state, 'succeeded', job.log.join('\n'));
});

after(async () => {
  await kade?.close();
  await cleanupLabelled();
});

const open = () => kade.kade.openLogStreams();

test('50 followed log streams and 200 API clients at once: every answer 2xx, every follower gets lines', { timeout: 60_000 }, async () => {
  const followers: Follower[] = [];
  // 40 followers of single containers (8 each) and 10 of the app, whose log merges two containers.
  for (let i = 0; i < 40; i++) followers.push(follow(`${kade.url}/api/containers/${TALKERS[i % TALKERS.length]}/logs?follow=1&tail=5`, viewer.cookie));
  for (let i = 0; i < 10; i++) followers.push(follow(`${kade.url}/api/stacks/${APP}/logs?follow=1&tail=5`, viewer.cookie));
  try {
    await Promise.race([
      Promise.all(followers.map((f) => f.first)),
      Promise.all(followers.map((f) => f.done)).then((why) => assert.fail(`every follower ended before its first line: ${why.join(', ')}`)),
    ]);
    assert.equal(open(), 40 + 10 * 2, 'one engine stream per followed container');
    const before = followers.map((f) => f.lines());
    const load = await apiLoad({
      base: kade.url,
      cookies: [admin.cookie, viewer.cookie],
      paths: ['/api/stacks', '/api/containers', '/healthz'],
      clients: 200,
      rounds: 3,
      deadlineMs: 20_000,
    });
    assert.deepEqual(load.errors, [], 'no request without an answer');
    const bad = [...load.statuses].filter(([status]) => status < 200 || status > 299);
    assert.deepEqual(bad, [], 'every answer 2xx');
    assert.ok(load.requests >= 200 * 3, `${load.requests} requests: every client made at least one round`);
    // The followers went on receiving while the API was under load, and none was cut off.
    await until('every follower got lines during the load', () => followers.every((f, i) => f.lines() > (before[i] ?? 0)), 20_000);
    assert.equal(open(), 40 + 10 * 2, 'no follower was cut off');
  } finally {
    for (const f of followers) f.close();
  }
  await until('every engine stream closed after the followers left', () => open() === 0, 15_000);
});

test('a reader that goes away closes its engine streams at once', { timeout: 30_000 }, async () => {
  // Proof through Kade's count of engine log streams it holds (decremented when the adapter's stream
  // closes, which destroys the engine's HTTP response): +1 for a container, +2 for the two-service app.
  const one = follow(`${kade.url}/api/containers/${TALKERS[0]}/logs?follow=1&tail=1`, viewer.cookie);
  const app = follow(`${kade.url}/api/stacks/${APP}/logs?follow=1&tail=1`, viewer.cookie);
  await Promise.all([one.first, app.first]);
  assert.equal(open(), 3);
  one.close();
  assert.equal(await one.done, 'closed');
  await until('the container follower’s engine stream closed', () => open() === 2, 10_000);
  app.close();
  await until('both engine streams of the app follower closed', () => open() === 0, 10_000);
});

test('stalled readers are cut off: the server closes their engine streams and connections, memory stays bounded', { timeout: 60_000 }, async () => {
  await runTalker(FLOODER, FLOOD, ['--cpus', '0.5']);
  const readers = await Promise.all(Array.from({ length: 4 }, () => stalledReader(kade.url, `/api/containers/${FLOODER}/logs?follow=1&tail=0`, viewer.cookie)));
  try {
    const rss0 = process.memoryUsage().rss;
    let growth = 0;
    const sample = () => {
      growth = Math.max(growth, process.memoryUsage().rss - rss0);
    };
    // Each of them alone would be tens of megabytes behind within seconds if Kade kept buffering.
    await until('all four stalled readers are following', () => open() === 4, 15_000, sample);
    await until('the server cut all four off (their engine streams closed)', () => open() === 0 || growth >= RSS_BOUND, 40_000, sample);
    assert.ok(growth < RSS_BOUND, `RSS grew by ${Math.round(growth / MB)} MB while four readers stalled`);
    // The connections are closed from the server's side: reading on, each one reaches its end.
    const received = await Promise.all(readers.map((r) => r.drain()));
    for (const bytes of received) assert.ok(bytes > 0, 'the reader got the start of the stream before it stalled');
  } finally {
    for (const r of readers) r.socket.destroy();
  }
});

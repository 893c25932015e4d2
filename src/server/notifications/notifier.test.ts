import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DeliveryT } from '../../shared/notifications.ts';
import { createEventBus } from '../core/events.ts';
import { createLogger } from '../core/logger.ts';
import type { Message, SendResult } from './message.ts';
import type { Rules, StoredChannel } from './notifications.repo.ts';
import { channelsFor, createNotifier, notifyEvent, requestOf } from './notifier.ts';
import { diskRequest, stuckRequests } from './periodic-checks.ts';

const logger = createLogger('silent');
const ch = (id: string, enabled = true): StoredChannel => ({ id, kind: 'webhook', enabled, url: `http://127.0.0.1/${id}`, format: 'generic', token: null });

/** An in-memory repository and a sender that records what it was given. */
function setup(channels: StoredChannel[], rules: Rules = {}, answer: (c: StoredChannel) => Promise<SendResult> = async () => ({ ok: true, status: 200 })) {
  const state = new Map<string, string>();
  const history: { channel: string; d: DeliveryT }[] = [];
  const sent: { channel: string; m: Message }[] = [];
  const repo = {
    channels: () => channels,
    rules: () => rules,
    record: (channel: string, d: DeliveryT) => history.push({ channel, d }),
    state: (kind: string, subject: string) => state.get(`${kind} ${subject}`) ?? null,
    setState: (kind: string, subject: string, value: string) => state.set(`${kind} ${subject}`, value),
  };
  const notifier = createNotifier({
    repo,
    send: (c, m) => {
      sent.push({ channel: c.id, m });
      return answer(c);
    },
    logger,
    clock: () => new Date('2026-11-26T10:00:00Z'),
  });
  return { notifier, sent, history, state };
}

describe('rules', () => {
  test('round kinds: one message per round and subject', async () => {
    const { notifier, sent } = setup([ch('a')]);
    for (const round of ['r1', 'r1', 'r2', 'r2']) notifier.request({ kind: 'update_available', subject: 'blog', round, message: round });
    notifier.request({ kind: 'update_available', subject: 'wiki', round: 'r1', message: 'wiki' });
    await notifier.idle();
    assert.deepEqual(
      sent.map((s) => s.m.message),
      ['r1', 'r2', 'wiki'],
    );
  });

  test('transition kinds: only on entering, again only after leaving; a first "off" sends nothing', async () => {
    const { notifier, sent } = setup([ch('a')]);
    for (const state of ['off', 'on', 'on', 'off', 'on', 'on'] as const)
      notifier.request({ kind: 'container_stopped', subject: 'web-1', state, message: state });
    await notifier.idle();
    assert.equal(sent.length, 2);
  });

  test('a channel named in no rule gets every kind; disabled channels nothing', () => {
    const channels = [ch('all'), ch('backups'), ch('off', false)];
    const rules: Rules = { backup_failed: ['backups'] };
    assert.deepEqual(
      channelsFor('disk_low', channels, rules).map((c) => c.id),
      ['all'],
    );
    assert.deepEqual(
      channelsFor('backup_failed', channels, rules).map((c) => c.id),
      ['all', 'backups'],
    );
  });

  test('a sender that throws or fails is recorded and never escapes', async () => {
    const { notifier, history } = setup([ch('boom'), ch('ok')], {}, async (c) => {
      if (c.id === 'boom') throw new Error('socket exploded');
      return { ok: true, status: 204 };
    });
    assert.doesNotThrow(() => notifier.request({ kind: 'disk_low', subject: '/srv', state: 'on', message: 'low' }));
    await notifier.idle();
    assert.deepEqual(
      history.map((h) => [h.channel, h.d.ok, h.d.error ?? h.d.status]),
      [
        ['boom', false, 'socket exploded'],
        ['ok', true, 204],
      ],
    );
  });

  test('the test message goes to every enabled channel whatever the rules', async () => {
    const { notifier } = setup([ch('a'), ch('b', false), ch('c')], { disk_low: ['c'] }, async (c) =>
      c.id === 'a' ? { ok: true, status: 200 } : { ok: false, error: 'connection refused' },
    );
    assert.deepEqual((await notifier.test()).results, [
      { channel: 'a', kind: 'webhook', ok: true, status: 200 },
      { channel: 'c', kind: 'webhook', ok: false, error: 'connection refused' },
    ]);
  });

  test('on the bus: notify events and the backup events become messages; other events do not', async () => {
    const { notifier, sent } = setup([ch('a')]);
    const bus = createEventBus(logger);
    notifier.subscribe(bus);
    bus.emit(notifyEvent({ kind: 'job_stuck', subject: 'stack.install of blog', round: 'job-1', message: 'stuck' }));
    bus.emit({ type: 'backup.failed', actor: null, source: 'backups', target: 'blog', status: 'failed', detail: { reason: 'update', error: 'x', job: 'j' } });
    bus.emit({ type: 'backup.verified', actor: null, source: 'backups', target: 'blog', status: 'ok', detail: { id: 'b', job: 'v' } });
    bus.emit({ type: 'stack.start', actor: null, source: 'stacks', target: 'blog', status: 'ok' });
    bus.emit({ type: 'notify.bogus', actor: null, source: 'notify', target: 'x', status: 'ok' });
    await notifier.idle();
    assert.deepEqual(
      sent.map((s) => s.m.kind),
      ['job_stuck', 'backup_failed'],
    );
    assert.equal(
      requestOf({ type: 'backup.verified', actor: null, source: 'backups', target: 'blog', status: 'failed', detail: { id: 'blog-1', job: 'v' } })?.kind,
      'archive_unreadable',
    );
  });
});

describe('periodic checks', () => {
  const GB = 1024 ** 3;
  const disk = { path: '/srv/backups', total: 100 * GB, warn_pct: 90, min_free_gb: 5 };
  test('low disk: under DISK_MIN_FREE_GB free or at DISK_WARN_PCT used', () => {
    assert.equal(diskRequest({ ...disk, free: 50 * GB, used_pct: 50 }).state, 'off');
    assert.equal(diskRequest({ ...disk, free: 4 * GB, used_pct: 50 }).state, 'on');
    assert.equal(diskRequest({ ...disk, free: 9 * GB, used_pct: 91 }).state, 'on');
  });
  test('stuck: running past the threshold, once per job id (its round)', () => {
    const now = new Date('2026-11-26T10:00:00Z');
    const job = (id: string, started: string, state = 'running') =>
      ({ id, kind: 'backup.create', stack: 'blog', state, progress: 0, started_at: started, ended_at: null, error: null }) as never;
    const r = stuckRequests([job('old', '2026-11-26T09:00:00Z'), job('new', '2026-11-26T09:45:00Z'), job('done', '2026-11-26T08:00:00Z', 'failed')], now, 30);
    assert.deepEqual(
      r.map((x) => [x.round, x.subject]),
      [['old', 'backup.create of blog']],
    );
    assert.match(r[0]?.message ?? '', /60 minutes/);
  });
});

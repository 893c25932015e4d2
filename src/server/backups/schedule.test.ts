import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../core/logger.ts';
import { createBackupSchedule, lastDue, nextRun, type ScheduleSettings } from './schedule.ts';

const at = (s: string) => new Date(s);

test('daily and weekly rounds: the last due moment and the next one, on the clock of the zone', () => {
  const wed = at('2026-11-25T10:30:00Z'); // a Wednesday
  const utc = { day: 0, zone: 'UTC' };
  assert.equal(lastDue({ ...utc, mode: 'daily', hour: 3 }, wed)?.toISOString(), '2026-11-25T03:00:00.000Z');
  assert.equal(lastDue({ ...utc, mode: 'daily', hour: 11 }, wed)?.toISOString(), '2026-11-24T11:00:00.000Z');
  assert.equal(nextRun({ ...utc, mode: 'daily', hour: 3 }, wed)?.toISOString(), '2026-11-26T03:00:00.000Z');
  assert.equal(lastDue({ ...utc, mode: 'weekly', hour: 3 }, wed)?.toISOString(), '2026-11-22T03:00:00.000Z');
  assert.equal(nextRun({ ...utc, mode: 'weekly', hour: 3 }, wed)?.toISOString(), '2026-11-29T03:00:00.000Z');
  assert.equal(nextRun({ ...utc, mode: 'weekly', day: 3, hour: 11 }, wed)?.toISOString(), '2026-11-25T11:00:00.000Z');
  assert.equal(lastDue({ ...utc, mode: 'off', hour: 3 }, wed), null);
  assert.equal(nextRun({ ...utc, mode: 'off', hour: 3 }, wed), null);
  // 03:00 in Amsterdam (UTC+1 in November) and in New York (UTC-5), whatever zone this process runs in.
  assert.equal(nextRun({ mode: 'daily', day: 0, hour: 3, zone: 'Europe/Amsterdam' }, wed)?.toISOString(), '2026-11-26T02:00:00.000Z');
  assert.equal(nextRun({ mode: 'daily', day: 0, hour: 3, zone: 'America/New_York' }, wed)?.toISOString(), '2026-11-26T08:00:00.000Z');
  // Weekly on Wednesday: in Tokyo it is Wednesday 19:30 already, so the 11:00 round there was due today.
  assert.equal(lastDue({ mode: 'weekly', day: 3, hour: 11, zone: 'Asia/Tokyo' }, wed)?.toISOString(), '2026-11-25T02:00:00.000Z');
});

/** The rounds a schedule starts while a fixed clock steps a quarter of an hour at a time from `from` to `to`. */
async function roundsBetween(settings: ScheduleSettings, from: string, to: string): Promise<string[]> {
  const stateFile = join(mkdtempSync(join(tmpdir(), 'kade-sched-')), 'schedule.json');
  let now = at(from);
  const rounds: string[] = [];
  const schedule = createBackupSchedule({
    settings: () => settings,
    apps: () => ['a'],
    backup: async () => {
      rounds.push(now.toISOString());
      return { state: 'ok' };
    },
    stateFile,
    logger: createLogger('silent'),
    clock: () => now,
  });
  for (; now < at(to); now = new Date(now.getTime() + 15 * 60_000)) await schedule.tick();
  return rounds;
}

test('the round runs at the hour on the clock of TIMEZONE, across both daylight-saving changes', async () => {
  const amsterdam: ScheduleSettings = { mode: 'daily', day: 0, hour: 2, zone: 'Europe/Amsterdam' };
  // Autumn: 03:00 CEST becomes 02:00 CET on 25 October 2026, so 02:00 comes twice that night: one round, at the first.
  assert.deepEqual(await roundsBetween(amsterdam, '2026-10-23T22:00:30Z', '2026-10-26T22:00:00Z'), [
    '2026-10-24T00:00:30.000Z',
    '2026-10-25T00:00:30.000Z',
    '2026-10-26T01:00:30.000Z',
  ]);
  // Spring: 02:00 CET becomes 03:00 CEST on 28 March 2027, so 02:00 never shows: the round runs when the clock jumps.
  assert.deepEqual(await roundsBetween(amsterdam, '2027-03-26T22:00:30Z', '2027-03-29T22:00:00Z'), [
    '2027-03-27T01:00:30.000Z',
    '2027-03-28T01:00:30.000Z',
    '2027-03-29T00:00:30.000Z',
  ]);
  // Weekly on Sunday at 04:00 in New York, either side of its change to summer time (14 March 2027).
  const newYork: ScheduleSettings = { mode: 'weekly', day: 0, hour: 4, zone: 'America/New_York' };
  assert.deepEqual(await roundsBetween(newYork, '2027-03-06T00:00:30Z', '2027-03-22T00:00:00Z'), [
    '2027-03-07T09:00:30.000Z',
    '2027-03-14T08:00:30.000Z',
    '2027-03-21T08:00:30.000Z',
  ]);
});

test("TIMEZONE that is the process's own zone: the plain clock, across a daylight-saving change too", async () => {
  const before = process.env.TZ;
  process.env.TZ = 'Europe/Amsterdam';
  try {
    assert.deepEqual(await roundsBetween({ mode: 'daily', day: 0, hour: 2, zone: null }, '2027-03-26T22:00:30Z', '2027-03-29T22:00:00Z'), [
      '2027-03-27T01:00:30.000Z',
      '2027-03-28T01:00:30.000Z',
      '2027-03-29T00:00:30.000Z',
    ]);
  } finally {
    if (before === undefined) delete process.env.TZ;
    else process.env.TZ = before;
  }
});

test('a due round backs up every app once, skips a busy one, and does not repeat after a restart', async () => {
  const stateFile = join(mkdtempSync(join(tmpdir(), 'kade-sched-')), 'schedule.json');
  let now = at('2026-11-25T03:00:30Z');
  const done: string[] = [];
  const make = () =>
    createBackupSchedule({
      settings: () => ({ mode: 'daily', day: 0, hour: 3, zone: 'UTC' }),
      apps: () => ['a', 'b', 'c'],
      backup: async (app) => {
        done.push(app);
        return { state: app === 'b' ? 'busy' : 'ok' };
      },
      stateFile,
      logger: createLogger('silent'),
      clock: () => now,
    });
  const first = make();
  assert.deepEqual(await first.tick(), { a: 'ok', b: 'busy', c: 'ok' });
  assert.equal(await first.tick(), null, 'once per due moment');
  // A restart within the same round: the state file says it ran.
  assert.equal(await make().tick(), null);
  now = at('2026-11-26T03:01:00Z');
  assert.deepEqual(await make().tick(), { a: 'ok', b: 'busy', c: 'ok' });
  assert.deepEqual(done, ['a', 'b', 'c', 'a', 'b', 'c']);
  // Long after the due hour (Kade was down), the missed round is not made up at a random time.
  now = at('2026-11-27T09:00:00Z');
  assert.equal(await make().tick(), null);
});

import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createLogger } from '../core/logger.ts';
import { createBackupSchedule, lastDue, nextRun } from './schedule.ts';

const at = (s: string) => new Date(s);

test('daily and weekly rounds: the last due moment and the next one, in local time', () => {
  const wed = at('2026-11-25T10:30:00'); // a Wednesday
  assert.equal(lastDue({ mode: 'daily', day: 0, hour: 3 }, wed)?.toString(), at('2026-11-25T03:00:00').toString());
  assert.equal(lastDue({ mode: 'daily', day: 0, hour: 11 }, wed)?.toString(), at('2026-11-24T11:00:00').toString());
  assert.equal(nextRun({ mode: 'daily', day: 0, hour: 3 }, wed)?.toString(), at('2026-11-26T03:00:00').toString());
  assert.equal(lastDue({ mode: 'weekly', day: 0, hour: 3 }, wed)?.toString(), at('2026-11-22T03:00:00').toString());
  assert.equal(nextRun({ mode: 'weekly', day: 0, hour: 3 }, wed)?.toString(), at('2026-11-29T03:00:00').toString());
  assert.equal(nextRun({ mode: 'weekly', day: 3, hour: 11 }, wed)?.toString(), at('2026-11-25T11:00:00').toString());
  assert.equal(lastDue({ mode: 'off', day: 0, hour: 3 }, wed), null);
  assert.equal(nextRun({ mode: 'off', day: 0, hour: 3 }, wed), null);
});

test('a due round backs up every app once, skips a busy one, and does not repeat after a restart', async () => {
  const stateFile = join(mkdtempSync(join(tmpdir(), 'kade-sched-')), 'schedule.json');
  let now = at('2026-11-25T03:00:30');
  const done: string[] = [];
  const make = () =>
    createBackupSchedule({
      settings: () => ({ mode: 'daily', day: 0, hour: 3 }),
      apps: () => ['a', 'b', 'c'],
      backup: async (app) => {
        done.push(app);
        return app === 'b' ? 'busy' : 'ok';
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
  now = at('2026-11-26T03:01:00');
  assert.deepEqual(await make().tick(), { a: 'ok', b: 'busy', c: 'ok' });
  assert.deepEqual(done, ['a', 'b', 'c', 'a', 'b', 'c']);
  // Long after the due hour (Kade was down), the missed round is not made up at a random time.
  now = at('2026-11-27T09:00:00');
  assert.equal(await make().tick(), null);
});

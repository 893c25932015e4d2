import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hourText, scheduleProblems, toScheduleForm, toScheduleUpdate, weekdayNames } from './schedule-model.ts';

const saved = { mode: 'weekly', day: 0, hour: 3, retention_count: 7, retention_days: 30, next_run: '2026-11-29T03:00:00Z' } as const;

test('the saved schedule round-trips through the form without next_run', () => {
  assert.deepEqual(toScheduleUpdate(toScheduleForm(saved)), {
    body: { mode: 'weekly', day: 0, hour: 3, retention_count: 7, retention_days: 30 },
    bad: [],
  });
});

test('values that are not whole numbers within the limits are named and nothing is sent', () => {
  const form = { ...toScheduleForm(saved), retention_count: '1001', retention_days: '-1', hour: '24', day: '2.5' };
  assert.deepEqual(toScheduleUpdate(form), { body: null, bad: ['day', 'hour', 'retention_count', 'retention_days'] });
  assert.deepEqual(toScheduleUpdate({ ...toScheduleForm(saved), retention_days: '' }).bad, ['retention_days']);
  assert.deepEqual(toScheduleUpdate({ ...toScheduleForm(saved), retention_days: ' 3650 ' }).body?.retention_days, 3650);
});

test('hours read like a clock and weekdays start on Sunday', () => {
  assert.equal(hourText(3), '03:00');
  assert.equal(hourText(23), '23:00');
  assert.deepEqual(weekdayNames('en-GB').slice(0, 2), ['Sunday', 'Monday']);
  assert.equal(weekdayNames('nl-NL')[6], 'zaterdag');
});

test('each field says what is wrong with it while typing: empty, not a whole number, or out of its limits', () => {
  const form = { ...toScheduleForm(saved), hour: '', retention_count: '1.5', retention_days: '4000' };
  assert.deepEqual(scheduleProblems(form), {
    hour: { kind: 'required' },
    retention_count: { kind: 'whole' },
    retention_days: { kind: 'range', min: 0, max: 3650 },
  });
  assert.deepEqual(scheduleProblems(toScheduleForm(saved)), {});
});

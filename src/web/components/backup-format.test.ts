import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diskBelowMinimum, diskWarns, formatBytes, formatPct, formatWhen } from './backup-format.ts';

test('sizes are written in steps of 1024 with the language’s decimal sign', () => {
  assert.equal(formatBytes(0, 'en'), '0 B');
  assert.equal(formatBytes(1023, 'en'), '1,023 B');
  assert.equal(formatBytes(1024, 'en'), '1 KB');
  assert.equal(formatBytes(1536, 'en'), '1.5 KB');
  assert.equal(formatBytes(1536, 'nl'), '1,5 KB');
  assert.equal(formatBytes(25 * 1024 ** 2 + 300_000, 'en'), '25 MB');
  assert.equal(formatBytes(3.25 * 1024 ** 3, 'en'), '3.3 GB');
  assert.equal(formatBytes(-5, 'en'), '0 B');
});

test('percentages keep one decimal at most', () => {
  assert.equal(formatPct(87.45, 'en'), '87.5%');
  assert.equal(formatPct(87.45, 'nl'), '87,5%');
  assert.equal(formatPct(90, 'nl'), '90%');
});

test('a time that is not a date is shown as it came', () => {
  assert.equal(formatWhen('not a date', 'en'), 'not a date');
  assert.match(formatWhen('2026-11-25T03:15:00Z', 'en'), /2026/);
});

test('the bar warns from DISK_WARN_PCT on, and a disk below DISK_MIN_FREE_GB is named', () => {
  assert.equal(diskWarns({ used_pct: 84.9, warn_pct: 85 }), false);
  assert.equal(diskWarns({ used_pct: 85, warn_pct: 85 }), true);
  assert.equal(diskWarns({ used_pct: 99, warn_pct: 85 }), true);
  assert.equal(diskBelowMinimum({ free: 2 * 1024 ** 3, min_free_gb: 2 }), false);
  assert.equal(diskBelowMinimum({ free: 2 * 1024 ** 3 - 1, min_free_gb: 2 }), true);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLoginBackoff } from './login-backoff.ts';

/** `count` failed attempts on `account`, each from its own address, one second apart from `start`. */
function spray(backoff: ReturnType<typeof createLoginBackoff>, account: string, count: number, start = 0): number {
  let now = start;
  for (let i = 0; i < count; i++) {
    now = start + i * 1000;
    backoff.take(account, `203.0.113.${i % 250}`, now);
  }
  return now;
}

test('a known device is never delayed by guesses from elsewhere, and has a budget of its own', () => {
  const b = createLoginBackoff();
  const now = spray(b, 'admin', 200);
  for (let i = 0; i < 5; i++) assert.equal(b.take('admin', '203.0.113.1', now + i, 'device-1'), 0);
  assert.ok(b.take('admin', '203.0.113.1', now + 5, 'device-1') > 0, 'the device has five attempts a minute');
  assert.equal(b.take('admin', '203.0.113.1', now + 6, 'device-2'), 0, 'another device has its own');
});

test('a new address on an account under attack waits at most the capped delay, once', () => {
  const b = createLoginBackoff();
  const now = spray(b, 'admin', 200);
  const wait = b.take('admin', '192.0.2.7', now);
  assert.ok(wait > 0 && wait <= 30_000, `first contact waits ${wait} ms`);
  // The attacker keeps going meanwhile; the new address's turn is its own.
  spray(b, 'admin', 30, now);
  assert.ok(b.take('admin', '192.0.2.7', now + wait - 1) > 0);
  assert.equal(b.take('admin', '192.0.2.7', now + wait), 0);
});

test('each address on an account under attack waits between its own attempts; another account is not slowed', () => {
  const b = createLoginBackoff();
  const now = spray(b, 'admin', 12);
  assert.equal(b.take('admin', '203.0.113.3', now + 1000), 0, 'its last attempt was long enough ago');
  assert.ok(b.take('admin', '203.0.113.3', now + 1001) > 0);
  assert.equal(b.take('someone', '198.51.100.1', now + 1002), 0);
});

test('a success stops counting; earlier failures still count', () => {
  const b = createLoginBackoff();
  for (let i = 0; i < 4; i++) assert.equal(b.take('admin', '198.51.100.9', i), 0);
  assert.equal(b.take('admin', '198.51.100.9', 10), 0);
  b.succeeded('admin', '198.51.100.9', 10);
  assert.equal(b.take('admin', '198.51.100.9', 11), 0);
  assert.ok(b.take('admin', '198.51.100.9', 12) > 0);
});

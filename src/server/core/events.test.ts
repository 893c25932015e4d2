import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEventBus, type DomainEvent } from './events.ts';
import type { Logger } from './logger.ts';

const event: DomainEvent = { type: 'stack.start', actor: { user: 'ann', role: 'admin', ip: '10.0.0.2' }, source: 'stacks', target: 'web', status: 'ok' };

test('a throwing subscriber is logged and neither breaks the emitter nor the other subscribers', () => {
  const logged: unknown[] = [];
  const logger = { error: (obj: unknown) => logged.push(obj) } as unknown as Logger;
  const bus = createEventBus(logger);
  const seen: string[] = [];
  bus.subscribe(() => {
    throw new Error('SQLITE_BUSY: database is locked');
  });
  bus.subscribe((e) => seen.push(e.type));
  assert.doesNotThrow(() => bus.emit(event));
  assert.deepEqual(seen, ['stack.start']);
  assert.equal(logged.length, 1);
  assert.match(String((logged[0] as { err: Error }).err.message), /database is locked/);
});

test('unsubscribe stops delivery', () => {
  const bus = createEventBus({ error: () => undefined } as unknown as Logger);
  let n = 0;
  const off = bus.subscribe(() => n++);
  bus.emit(event);
  off();
  bus.emit(event);
  assert.equal(n, 1);
});

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { mergeFollowed, mergeStamped, readAll } from './log-lines.ts';

test('stamped logs merge in time order, also when the engine trims trailing zeros', () => {
  const text = mergeStamped([
    { prefix: 'web', text: '2024-01-01T00:00:00.1Z a\n2024-01-01T00:00:02Z c\n' },
    { prefix: 'db', text: '2024-01-01T00:00:00.12Z b\nno stamp\n' },
  ]);
  assert.equal(text, 'db | no stamp\nweb | a\ndb | b\nweb | c\n');
});

test('followed logs are prefixed per line and end when all sources end', async () => {
  const a = new PassThrough();
  const b = new PassThrough();
  const merged = mergeFollowed([
    { prefix: 'a', stream: a },
    { prefix: 'b', stream: b },
  ]);
  a.end('one\ntw');
  b.end('x\n');
  const text = await readAll(merged);
  assert.deepEqual(text.split('\n').filter(Boolean).sort(), ['a | one', 'a | tw', 'b | x']);
});

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { MAX_LINE_CHARS, mergeFollowed, mergeStamped, readAll } from './log-lines.ts';

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

test('a reader that falls behind pauses every source; reading on resumes them', async () => {
  const a = new PassThrough();
  const b = new PassThrough();
  const merged = mergeFollowed([
    { prefix: 'a', stream: a },
    { prefix: 'b', stream: b },
  ]);
  const line = `${'x'.repeat(1000)}\n`;
  // Far more than the merged stream buffers: the sources must be told to stop.
  for (let i = 0; i < 200 && !a.isPaused(); i++) a.write(line);
  assert.equal(a.isPaused(), true);
  assert.equal(b.isPaused(), true);
  const buffered = merged.readableLength + (merged as PassThrough).writableLength;
  assert.ok(buffered < 200 * 1000, `the merged stream holds ${buffered} bytes`);
  merged.resume();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(a.isPaused(), false);
  assert.equal(b.isPaused(), false);
  merged.destroy();
});

test('a line without an end is passed on in pieces, and a character split across chunks stays whole', async () => {
  const a = new PassThrough();
  const merged = mergeFollowed([{ prefix: '', stream: a }]);
  const euro = Buffer.from('€');
  a.write(Buffer.concat([Buffer.from('price '), euro.subarray(0, 1)]));
  a.write(Buffer.concat([euro.subarray(1), Buffer.from('\r\n')]));
  a.end('y'.repeat(MAX_LINE_CHARS * 2 + 5));
  const lines = (await readAll(merged)).split('\n').filter(Boolean);
  assert.deepEqual(
    lines.map((l) => l.length),
    [7, MAX_LINE_CHARS, MAX_LINE_CHARS, 5],
  );
  assert.equal(lines[0], 'price €');
});

test('destroying the merged stream destroys its sources (the engine streams close)', () => {
  const a = new PassThrough();
  const b = new PassThrough();
  const merged = mergeFollowed([
    { prefix: 'a', stream: a },
    { prefix: 'b', stream: b },
  ]);
  merged.destroy();
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    assert.equal(a.destroyed, true);
    assert.equal(b.destroyed, true);
  });
});

import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { MAX_LINE_CHARS, mergeFollowed, mergeStamped, readAll } from './log-lines.ts';
import { logSecretList } from './mask-secrets.ts';

/** Two followed sources, `a` and `b`, merged. */
function followedPair() {
  const a = new PassThrough();
  const b = new PassThrough();
  const merged = mergeFollowed([
    { prefix: 'a', stream: a },
    { prefix: 'b', stream: b },
  ]);
  return { a, b, merged };
}

test('stamped logs merge in time order, also when the engine trims trailing zeros', () => {
  const text = mergeStamped([
    { prefix: 'web', text: '2024-01-01T00:00:00.1Z a\n2024-01-01T00:00:02Z c\n' },
    { prefix: 'db', text: '2024-01-01T00:00:00.12Z b\nno stamp\n' },
  ]);
  assert.equal(text, 'db | no stamp\nweb | a\ndb | b\nweb | c\n');
});

test('followed logs are prefixed per line and end when all sources end', async () => {
  const { a, b, merged } = followedPair();
  a.end('one\ntw');
  b.end('x\n');
  const text = await readAll(merged);
  assert.deepEqual(text.split('\n').filter(Boolean).sort(), ['a | one', 'a | tw', 'b | x']);
});

test('a reader that falls behind pauses every source; reading on resumes them', async () => {
  const { a, b, merged } = followedPair();
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
  const { a, b, merged } = followedPair();
  merged.destroy();
  return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
    assert.equal(a.destroyed, true);
    assert.equal(b.destroyed, true);
  });
});

test('a followed log masks a secret split across two chunks, and one across the pieces of an overlong line', async () => {
  const a = new PassThrough();
  const b = new PassThrough();
  const secret = 'CANARY-split-secret-77';
  const merged = mergeFollowed(
    [
      { prefix: 'a', stream: a },
      { prefix: 'b', stream: b },
    ],
    logSecretList([secret]),
  );
  a.write(`TOKEN=${secret.slice(0, 9)}`);
  b.write(`${'y'.repeat(MAX_LINE_CHARS - 5)}${secret}`);
  await new Promise((resolve) => setImmediate(resolve));
  a.end(`${secret.slice(9)} ok\n`);
  b.end(' end\n');
  const text = await readAll(merged);
  assert.ok(!text.includes(secret.slice(0, 9)) && !text.includes(secret.slice(9)), text.slice(0, 200));
  assert.ok(text.includes('a | TOKEN=••• ok\n'), text.slice(0, 200));
  assert.match(text, /\nb \| y{16}••• end\n/, text.slice(-200));
});

test('stamped logs mask the text of each line, not the prefix', () => {
  const text = mergeStamped([{ prefix: 'secret-svc', text: '2024-01-01T00:00:00Z key secret-svc-value\n' }], logSecretList(['secret-svc-value']));
  assert.equal(text, 'secret-svc | key •••\n');
});

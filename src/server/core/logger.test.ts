import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { createLogger } from './logger.ts';

test('log lines are JSON with the fields given, and secrets are redacted wherever they sit', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const log = createLogger('info', sink).child({ req_id: 'r-1' });
  log.info({ password: 'p1', body: { token: 't1', new_password: 'p2' }, values: { db_password: 'p3' }, user: 'ann' }, 'hello');
  const entry = JSON.parse(lines[0] ?? '{}');
  assert.equal(entry.req_id, 'r-1');
  assert.equal(entry.user, 'ann');
  assert.equal(entry.msg, 'hello');
  for (const s of ['p1', 't1', 'p2', 'p3']) assert.ok(!(lines[0] ?? '').includes(s), `${s} leaked`);
});

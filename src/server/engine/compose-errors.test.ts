import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../core/errors.ts';
import { composeFailed } from './compose-errors.ts';

// A port the app publishes that something else holds fails `up` with the engine's words, once per service and
// differently per engine version; the job and the apps list say Kade's own sentence once (issue #24 item 12).
const WORDS = {
  proxy: [
    'ERROR: for kadetest-x_web_1  Cannot start service web: driver failed programming external connectivity on endpoint kadetest-x_web_1 (b8d2): Error starting userland proxy: listen tcp4 127.0.0.1:44339: bind: address already in use',
    '',
    'ERROR: for web  Cannot start service web: driver failed programming external connectivity on endpoint kadetest-x_web_1 (b8d2): Error starting userland proxy: listen tcp4 127.0.0.1:44339: bind: address already in use',
    'Encountered errors while bringing up the project.',
  ].join('\n'),
  allocated:
    'Error response from daemon: driver failed programming external connectivity on endpoint x-web-1: Bind for 0.0.0.0:8080 failed: port is already allocated',
  hostPort:
    'Error response from daemon: failed to set up container networking: failed to bind host port for 0.0.0.0:18080:172.18.0.2:8080/tcp: address already in use',
};

test('a port held by something else reads as Kade’s own sentence, once, naming the port and the address', () => {
  for (const [words, port, address] of [
    [WORDS.proxy, 44339, '127.0.0.1'],
    [WORDS.allocated, 8080, '0.0.0.0'],
    [WORDS.hostPort, 18080, '0.0.0.0'],
  ] as const) {
    const err = composeFailed('kadetest-x', 'up', words);
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'compose_failed');
    assert.deepEqual(err.params, { stack: 'kadetest-x', reason: 'port_in_use', port, address });
    assert.equal(
      err.message,
      `port ${port} is already in use on this host (${address}), so compose up could not start 'kadetest-x': give the app another port in Configure, then try again`,
    );
    assert.doesNotMatch(err.message, /ERROR|userland|daemon/);
  }
});

test('any other failure keeps compose’s last words', () => {
  const err = composeFailed('kadetest-x', 'up', 'no such image: busybox:nope');
  assert.equal(err.message, "compose up of 'kadetest-x' failed: no such image: busybox:nope");
  assert.deepEqual(err.params, { stack: 'kadetest-x' });
});

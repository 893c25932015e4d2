import assert from 'node:assert/strict';
import { test } from 'node:test';
import { composePowers, describePowers, gatedPowers } from './compose-powers.ts';

const svc = (body: string) => `services:\n  app:\n    image: kade-test/busybox:1\n${body}`;

test('a bind of the engine socket is the engine socket power, read-only or not, in either syntax', () => {
  const cases = [
    '    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]\n',
    '    volumes: ["/var/run/docker.sock:/var/run/docker.sock:ro"]\n',
    '    volumes:\n      - type: bind\n        source: /var/run/docker.sock\n        target: /sock\n        read_only: true\n',
    '    volumes: ["//var/run//docker.sock:/s"]\n',
  ];
  for (const body of cases) {
    assert.deepEqual(composePowers(svc(body)), [{ service: 'app', power: 'engine_socket', value: '/var/run/docker.sock' }], body);
  }
  assert.equal(describePowers(composePowers(svc('    volumes: ["/run/docker.sock:/s"]\n'))), 'engine socket /run/docker.sock');
  // Through a variable, as compose resolves it; and the socket Kade itself talks to when it lies elsewhere.
  assert.equal(composePowers(svc('    volumes: ["${SOCK:-/var/run/docker.sock}:/s"]\n'))[0]?.power, 'engine_socket');
  assert.deepEqual(composePowers(svc('    volumes: ["/srv/engine.sock:/s"]\n')), []);
  assert.equal(composePowers(svc('    volumes: ["/srv/engine.sock:/s"]\n'), {}, ['/srv/engine.sock'])[0]?.value, '/srv/engine.sock');
});

test('the engine socket is judged like privileged (ALLOW_PRIVILEGED_APPS); a named volume or another file is no power', () => {
  const uses = composePowers(svc('    volumes: ["/var/run/docker.sock:/s", "/var/run/docker.sock:/t"]\n    devices: ["/dev/net/tun"]\n'));
  assert.deepEqual(
    uses.map((u) => u.power),
    ['devices', 'engine_socket'],
    'one power for the socket, however often it is bound',
  );
  assert.deepEqual(
    gatedPowers(uses).map((u) => u.power),
    ['engine_socket'],
  );
  for (const body of ['    volumes: ["docker.sock:/s"]\n', '    volumes: ["/var/run/docker.sock.d:/s"]\n', '    volumes: ["./docker.sock:/s"]\n']) {
    assert.deepEqual(composePowers(svc(body)), [], body);
  }
});

test('a bound folder that holds the engine socket (/var/run, /run, /) is named as that socket for the store, not by the policy', () => {
  const holders = { holders: true };
  assert.deepEqual(composePowers(svc('    volumes: ["/var/run:/var/run:ro"]\n'), {}, undefined, holders), [
    { service: 'app', power: 'engine_socket', value: '/var/run/docker.sock' },
  ]);
  assert.deepEqual(composePowers(svc('    volumes: ["/run/:/host/run"]\n'), {}, undefined, holders), [
    { service: 'app', power: 'engine_socket', value: '/run/docker.sock' },
  ]);
  assert.deepEqual(
    composePowers(svc('    volumes: ["/:/rootfs:ro", "/var/run/docker.sock:/s"]\n'), {}, undefined, holders),
    [{ service: 'app', power: 'engine_socket', value: '/var/run/docker.sock' }],
    'one power, however it is reached',
  );
  assert.deepEqual(composePowers(svc('    volumes: ["/run/dbus:/run/dbus", "/var/runner:/r"]\n'), {}, undefined, holders), []);
  // The policy and the review read without holders: the bind policy judges such a folder, and only an admin passes it.
  assert.deepEqual(composePowers(svc('    volumes: ["/var/run:/var/run"]\n')), []);
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAppError } from '../../core/errors.ts';
import type { Actor } from '../../core/events.ts';
import { composePowers, describePowers } from '../../templates/compose-powers.ts';
import { enforceComposePolicy } from './compose-policy.ts';

const svc = (body: string) => `services:\n  app:\n    image: kade-test/busybox:1\n${body}`;
const actor = (role: Actor['role']): Actor => ({ user: role, role, ip: '127.0.0.1' });

const refusedWith = (fn: () => unknown, code: string, reason?: string) =>
  assert.throws(fn, (e: unknown) => isAppError(e) && e.code === code && (reason === undefined || e.params.reason === reason));

describe('compose powers', () => {
  test('each power over the host is named with its value', () => {
    const cases: [string, string][] = [
      ['    privileged: true\n', 'privileged'],
      ['    network_mode: host\n', 'network_mode: host'],
      ['    network_mode: "container:kade"\n', 'network_mode: container:kade'],
      ['    pid: host\n', 'pid: host'],
      ['    ipc: host\n', 'ipc: host'],
      ['    uts: host\n', 'uts: host'],
      ['    userns_mode: host\n', 'userns_mode: host'],
      ['    cgroup: host\n', 'cgroup: host'],
      ['    cap_add: [SYS_ADMIN]\n', 'cap_add: SYS_ADMIN'],
      ['    cap_add: [CAP_NET_ADMIN]\n', 'cap_add: NET_ADMIN'],
      ['    cap_add: [ALL]\n', 'cap_add: ALL'],
      ['    security_opt: ["seccomp=unconfined"]\n', 'security_opt: seccomp=unconfined'],
      ['    security_opt: ["apparmor:unconfined"]\n', 'security_opt: apparmor:unconfined'],
      ['    security_opt: ["label=disable"]\n', 'security_opt: label=disable'],
      ['    devices: ["/dev/kvm:/dev/kvm"]\n', 'devices: /dev/kvm'],
    ];
    for (const [body, want] of cases) assert.equal(describePowers(composePowers(svc(body))), want, body);
  });

  test('what gives no power is not reported', () => {
    const plain = [
      '    privileged: false\n',
      '    network_mode: bridge\n',
      '    network_mode: "service:vpn"\n',
      '    ipc: shareable\n',
      '    cap_add: [NET_BIND_SERVICE, CHOWN]\n',
      '    security_opt: ["no-new-privileges:true"]\n',
    ];
    for (const body of plain) assert.deepEqual(composePowers(svc(body)), [], body);
  });

  test('values are interpolated from the .env as compose does, and merge keys are applied', () => {
    assert.equal(describePowers(composePowers(svc('    privileged: ${PRIV}\n'), { PRIV: 'true' })), 'privileged');
    assert.deepEqual(composePowers(svc('    privileged: ${PRIV:-false}\n')), []);
    assert.equal(describePowers(composePowers(svc('    network_mode: ${NET:-host}\n'))), 'network_mode: host');
    const merged = 'x-base: &base\n  privileged: true\nservices:\n  app:\n    <<: *base\n    image: kade-test/busybox:1\n';
    assert.equal(describePowers(composePowers(merged)), 'privileged');
    const anchored = 'x-caps: &caps [SYS_ADMIN]\nservices:\n  app:\n    image: kade-test/busybox:1\n    cap_add: *caps\n';
    assert.equal(describePowers(composePowers(anchored)), 'cap_add: SYS_ADMIN');
  });

  test('YAML hazards are refused as invalid compose: duplicate keys, alias bombs, no services', () => {
    refusedWith(() => composePowers(svc('    privileged: false\n    privileged: true\n')), 'compose_invalid', 'duplicate_key');
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      bomb.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    refusedWith(() => composePowers(`${bomb.join('\n')}\nservices:\n  app:\n    image: x\n`), 'compose_invalid', 'aliases');
    refusedWith(() => composePowers('services: {}\n'), 'compose_invalid', 'no_services');
    refusedWith(() => composePowers('services: [\n'), 'compose_invalid', 'yaml');
  });

  test('labels that claim ownership are refused wherever they are set', () => {
    const spoofs = [
      svc('    labels:\n      com.docker.compose.project: other\n'),
      svc('    labels: ["com.docker.compose.project.working_dir=/opt/kade/stacks/other"]\n'),
      svc('    labels:\n      kade.owner: me\n'),
      svc('    deploy:\n      labels:\n        com.docker.compose.service: x\n'),
      `${svc('')}networks:\n  n:\n    labels:\n      com.docker.compose.network: n\n`,
    ];
    for (const text of spoofs) refusedWith(() => composePowers(text), 'compose_refused', 'owner_label');
    assert.deepEqual(composePowers(svc('    labels:\n      traefik.enable: "true"\n')), []);
    assert.deepEqual(composePowers(svc('    labels:\n      kade.test: "1"\n')), []);
  });
});

describe('enforceComposePolicy', () => {
  const privileged = svc('    privileged: true\n    network_mode: host\n');
  test('operators are refused an app with powers unless ALLOW_PRIVILEGED_APPS is everyone; admins never', () => {
    assert.throws(
      () => enforceComposePolicy(actor('operator'), privileged, { allow: 'admins' }),
      (e: unknown) => isAppError(e) && e.code === 'app_powers_refused' && e.params.powers === 'privileged, network_mode: host' && e.params.services === 'app',
    );
    assert.equal(enforceComposePolicy(actor('operator'), privileged, { allow: 'everyone' }).length, 2);
    assert.equal(enforceComposePolicy(actor('admin'), privileged, { allow: 'admins' }).length, 2);
  });

  test('devices alone are left to the host-folder allow list', () => {
    const uses = enforceComposePolicy(actor('operator'), svc('    devices: ["/dev/ttyUSB0:/dev/ttyUSB0"]\n'), { allow: 'admins' });
    assert.deepEqual(uses, [{ service: 'app', power: 'devices', value: '/dev/ttyUSB0' }]);
  });
});

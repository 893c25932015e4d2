import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isOwnId, ownContainerIdFrom } from './own-container.ts';

const ID = 'a'.repeat(12) + 'b'.repeat(52);

test('the own id comes from cgroup v1, then mountinfo, then a hex host name', () => {
  assert.equal(ownContainerIdFrom({ cgroup: `12:memory:/docker/${ID}\n`, mountinfo: '', hostname: 'x' }), ID);
  assert.equal(ownContainerIdFrom({ cgroup: `0::/system.slice/docker-${ID}.scope\n`, mountinfo: '', hostname: 'x' }), ID);
  const mount = `612 590 0:52 /var/lib/docker/containers/${ID}/hostname /etc/hostname rw - ext4 /dev/sda1 rw\n`;
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', mountinfo: mount, hostname: 'x' }), ID);
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', mountinfo: '', hostname: 'aaaaaaaaaaaa\n' }), 'aaaaaaaaaaaa');
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', mountinfo: '', hostname: 'my-laptop' }), null);
});

test('an id matches by prefix of at least 12 characters', () => {
  assert.equal(isOwnId(ID.slice(0, 12), ID), true);
  assert.equal(isOwnId(ID, ID), true);
  assert.equal(isOwnId('aaa', ID), false);
  assert.equal(isOwnId(null, ID), false);
});

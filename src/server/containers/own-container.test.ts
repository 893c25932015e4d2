import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isOwnId, ownContainerIdFrom } from './own-container.ts';

const ID = 'a'.repeat(12) + 'b'.repeat(52);

const OTHER = 'c'.repeat(64);

test('the own id comes from cgroup v1, then mountinfo, then a hex host name', () => {
  const inContainer = true;
  assert.equal(ownContainerIdFrom({ cgroup: `12:memory:/docker/${ID}\n`, inContainer, mountinfo: '', hostname: 'x' }), ID);
  assert.equal(ownContainerIdFrom({ cgroup: `0::/system.slice/docker-${ID}.scope\n`, inContainer, mountinfo: '', hostname: 'x' }), ID);
  const mount = [
    `600 590 0:50 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/X\n`,
    `611 590 0:51 /var/lib/docker/containers/${ID}/resolv.conf /etc/resolv.conf rw - ext4 /dev/sda1 rw\n`,
    `612 590 0:52 /var/lib/docker/containers/${ID}/hostname /etc/hostname rw - ext4 /dev/sda1 rw\n`,
  ].join('');
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', inContainer, mountinfo: mount, hostname: 'x' }), ID);
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', inContainer, mountinfo: '', hostname: 'aaaaaaaaaaaa\n' }), 'aaaaaaaaaaaa');
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', inContainer, mountinfo: '', hostname: 'my-laptop' }), null);
});

test("another container's mount in the list is not the own container; outside a container only the cgroup counts", () => {
  // A host's mountinfo lists the shm mounts of the containers running there.
  const shm = `700 29 0:60 / /var/lib/docker/containers/${OTHER}/mounts/shm rw - tmpfs shm rw,size=65536k\n`;
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', inContainer: true, mountinfo: shm, hostname: 'x' }), null);
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', inContainer: false, mountinfo: shm, hostname: 'x' }), null);
  assert.equal(ownContainerIdFrom({ cgroup: '0::/\n', inContainer: false, mountinfo: '', hostname: 'deadbeef1234' }), null, 'a hex host name');
  assert.equal(ownContainerIdFrom({ cgroup: `0::/system.slice/docker-${ID}.scope\n`, inContainer: false, mountinfo: '', hostname: 'x' }), ID);
});

test('an id matches by prefix of at least 12 characters', () => {
  assert.equal(isOwnId(ID.slice(0, 12), ID), true);
  assert.equal(isOwnId(ID, ID), true);
  assert.equal(isOwnId('aaa', ID), false);
  assert.equal(isOwnId(null, ID), false);
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { bindRulesIn } from '../../../../test/helpers/bind-rules.ts';
import type { StorePowerT } from '../../../shared/powers.ts';
import type { Actor } from '../../core/events.ts';
import type { PrivilegedPolicy } from './compose-policy.ts';
import { createStoreJudgement } from './store-powers.ts';

const { root, rules } = bindRulesIn('kade-store-powers-');
let allow: PrivilegedPolicy = 'admins';
const needsAdmin = createStoreJudgement({ binds: rules, allowPrivileged: () => allow });
const as = (role: Actor['role']): Actor => ({ user: role, role, ip: '127.0.0.1' });
const p = (power: StorePowerT['power'], value: string, read_only = false): StorePowerT => ({ power, value, read_only });

test('an app without powers needs no admin; an admin never sees "needs an admin"', () => {
  assert.equal(needsAdmin(as('viewer'), []), false);
  assert.equal(needsAdmin(as('admin'), [p('engine_socket', '/var/run/docker.sock'), p('host_path', '/', true)]), false);
});

test('the engine socket and host paths outside the allowed places need an admin whatever ALLOW_PRIVILEGED_APPS says', () => {
  for (const policy of ['admins', 'everyone'] as const) {
    allow = policy;
    assert.equal(needsAdmin(as('operator'), [p('engine_socket', '/var/run/docker.sock')]), true, policy);
    assert.equal(needsAdmin(as('viewer'), [p('host_path', '/', true)]), true, policy);
    assert.equal(needsAdmin(as('operator'), [p('devices', '/dev/net/tun')]), true, policy);
    // What an admin allowed for every app (ALLOWED_HOST_DIRS) and the devices Kade lists need nobody.
    assert.equal(needsAdmin(as('operator'), [p('host_path', join(root, 'media', 'films'))]), false, policy);
    assert.equal(needsAdmin(as('operator'), [p('devices', '/dev/ttyUSB0')]), false, policy);
  }
});

test('privileged, the host network and capabilities need an admin only while ALLOW_PRIVILEGED_APPS is admins', () => {
  allow = 'admins';
  assert.equal(needsAdmin(as('operator'), [p('privileged', 'true')]), true);
  allow = 'everyone';
  assert.equal(needsAdmin(as('operator'), [p('privileged', 'true'), p('cap_add', 'NET_ADMIN')]), false);
  allow = 'admins';
});

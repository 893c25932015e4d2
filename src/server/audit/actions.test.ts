import assert from 'node:assert/strict';
import { test } from 'node:test';
import { en } from '../../web/messages/en.ts';
import { nl } from '../../web/messages/nl.ts';
import { AUDIT_ACTIONS, auditAction, KNOWN_ACTIONS } from './actions.ts';

test('events map to short, stable snake_case verbs', () => {
  assert.equal(auditAction('stack.installed'), 'install');
  assert.equal(auditAction('user.login'), 'login');
  assert.equal(auditAction('repo.edited'), 'edit');
  assert.equal(auditAction('stack.start'), 'start');
  assert.equal(auditAction('stack.credentials_viewed'), 'credentials_view');
  assert.equal(auditAction('stack.env_edited'), 'env_edit');
  assert.equal(auditAction('stack.reconfigured'), 'reconfigure');
  for (const action of Object.values(AUDIT_ACTIONS)) assert.match(action, /^[a-z][a-z_]{1,23}$/);
});

test('an unknown event keeps its raw type; prototype names are not actions', () => {
  assert.equal(auditAction('thing.happened'), 'thing.happened');
  assert.equal(auditAction('constructor'), 'constructor');
  assert.equal(auditAction('toString'), 'toString');
});

test('every action of the table has a label in nl and en', () => {
  for (const action of KNOWN_ACTIONS) {
    const key = `audit.action.${action}`;
    assert.ok(Object.hasOwn(en, key), `en lacks ${key}`);
    assert.ok(Object.hasOwn(nl, key), `nl lacks ${key}`);
  }
});

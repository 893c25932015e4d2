import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TemplateFile } from '../../shared/template.ts';
import { isNeverTyped, resolveValues } from './values.ts';

const t = TemplateFile.parse({
  name: 'Demo',
  version: '1',
  fields: [
    { id: 'admin_user', label: 'User', required: true },
    { id: 'admin_email', label: 'Mail', required: true },
    { id: 'port', label: 'Port', type: 'port', default: 8080 },
    { id: 'appdata_dir', label: 'Data' },
    { id: 'secret_key', label: 'Key', secret: true, generate: true },
  ],
  groups: [{ id: 'smtp', label: 'Mail', toggle: true, toggle_default: false, fields: [{ id: 'smtp_host', label: 'Host', required: true }] }],
});
const ctx = { dataDir: '/srv/data', uid: 1000, gid: 1000 };

test('every empty required field is named at once; fields behind an off toggle do not count', () => {
  assert.throws(
    () => resolveValues(t, {}, ctx),
    (e: { code: string; fields: string[] }) => e.code === 'required_fields' && e.fields.join() === 'admin_user,admin_email',
  );
  assert.throws(
    () => resolveValues(t, { admin_user: 'a', admin_email: 'b', smtp_enabled: true }, ctx),
    (e: { fields: string[] }) => e.fields.join() === 'smtp_host',
  );
});

test('defaults, pre-fills and generated secrets fill what was not given', () => {
  const v = resolveValues(t, { admin_user: 'a', admin_email: 'b' }, ctx);
  assert.equal(v.port, 8080);
  assert.equal(v.appdata_dir, '/srv/data');
  assert.match(String(v.secret_key), /^[A-Za-z0-9_-]{32}$/);
  assert.equal(v.smtp_enabled, false);
});

test('ports are checked', () => {
  assert.throws(() => resolveValues(t, { admin_user: 'a', admin_email: 'b', port: 70000 }, ctx), { code: 'validation' });
  assert.throws(() => resolveValues(t, { admin_user: 'a', admin_email: 'b', port: 'abc' }, ctx), { code: 'validation' });
});

test('database passwords and signing keys are never typed; login passwords are', () => {
  const f = (id: string) => TemplateFile.parse({ name: 'x', version: '1', fields: [{ id, label: 'x', secret: true, generate: true }] }).fields[0];
  for (const id of ['db_password', 'postgres_password', 'mariadb_pass', 'secret_key', 'jwt_secret', 'encryption_key', 'app_key']) {
    assert.equal(isNeverTyped(f(id) as never), true, id);
  }
  for (const id of ['admin_password', 'password', 'user_password', 'login_password']) assert.equal(isNeverTyped(f(id) as never), false, id);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NOTIFICATION_KINDS, CHANNEL_KINDS as SHARED_CHANNEL_KINDS, SMTP_SECURITY, WEBHOOK_FORMATS } from '../../../shared/notifications.ts';
import type { NotificationsT } from './notifications-api.ts';
import {
  CHANNEL_KINDS,
  FORMATS,
  fieldsByChannel,
  hasRules,
  KINDS,
  newChannel,
  newChannelId,
  removeChannel,
  SECURITIES,
  toForm,
  toggleRule,
  toUpdate,
  withSecurity,
} from './notifications-model.ts';

const saved: NotificationsT = {
  channels: [
    { id: 'hook', kind: 'webhook', enabled: true, url: 'https://hooks.example/x', format: 'slack', has_token: true, history: [] },
    {
      id: 'mail',
      kind: 'email',
      enabled: false,
      name: 'Ops',
      smtp: { host: 'smtp.example', port: 587, security: 'starttls', username: 'kade', has_password: true, from: 'kade@example', to: 'ops@example' },
      history: [{ at: '2026-11-26T10:00:00Z', kind: 'test', ok: false, error: 'connect ECONNREFUSED' }],
    },
  ],
  rules: { disk_low: ['mail'], backup_failed: ['hook', 'mail'] },
  kinds: ['backup_failed', 'disk_low'],
  stuck_after_minutes: 60,
};

test('a saved state goes back as it came, without secrets: empty ones keep what the server stores', () => {
  assert.deepEqual(toUpdate(toForm(saved)), {
    channels: [
      { id: 'hook', kind: 'webhook', enabled: true, url: 'https://hooks.example/x', format: 'slack' },
      {
        id: 'mail',
        kind: 'email',
        enabled: false,
        name: 'Ops',
        smtp: { host: 'smtp.example', port: 587, security: 'starttls', username: 'kade', from: 'kade@example', to: 'ops@example' },
      },
    ],
    rules: { disk_low: ['mail'], backup_failed: ['hook', 'mail'] },
  });
});

test('a typed secret is sent; fields of another kind are not', () => {
  const f = toForm(saved);
  const [hook, mail] = f.channels;
  assert.ok(hook && mail);
  hook.token = 's3cret';
  mail.smtp.password = 'pw';
  mail.url = 'https://left.over/';
  const body = toUpdate(f);
  assert.equal(body.channels[0]?.token, 's3cret');
  assert.equal(body.channels[1]?.smtp?.password, 'pw');
  assert.equal(body.channels[1]?.url, undefined);
  const push = toUpdate({ channels: [{ ...newChannel('push', 'p1'), url: ' https://ntfy.example/t ', format: 'discord' }], rules: {} });
  assert.deepEqual(push.channels, [{ id: 'p1', kind: 'push', enabled: true, url: 'https://ntfy.example/t' }]);
});

test('a port that is not a number is sent as such, so the server names the field', () => {
  const f = toForm(saved);
  const mail = f.channels[1];
  assert.ok(mail);
  mail.smtp.port = '58x';
  assert.ok(Number.isNaN(toUpdate(f).channels[1]?.smtp?.port));
});

test('rules: ticks add and remove, a removed channel leaves every rule, empty kinds are left out', () => {
  let f = toForm(saved);
  assert.equal(hasRules(f.rules, 'hook'), true);
  f = { ...f, rules: toggleRule(f.rules, 'backup_failed', 'hook', false) };
  assert.equal(hasRules(f.rules, 'hook'), false);
  f = { ...f, rules: toggleRule(f.rules, 'job_stuck', 'hook', true) };
  assert.deepEqual(toUpdate(f).rules, { disk_low: ['mail'], backup_failed: ['mail'], job_stuck: ['hook'] });
  f = removeChannel(f, 'mail');
  assert.deepEqual(toUpdate(f), {
    channels: [{ id: 'hook', kind: 'webhook', enabled: true, url: 'https://hooks.example/x', format: 'slack' }],
    rules: { job_stuck: ['hook'] },
  });
});

test('the security choice moves the port along only while it is the usual one', () => {
  const s = toForm(saved).channels[1]?.smtp;
  assert.ok(s);
  assert.equal(withSecurity(s, 'tls').port, '465');
  assert.equal(withSecurity({ ...s, port: '2525' }, 'tls').port, '2525');
  assert.equal(withSecurity({ ...s, port: '' }, 'none').port, '25');
});

test('refused fields are sorted to their channel, in either way of writing the path', () => {
  const got = fieldsByChannel(['channels[0].url', 'channels.1.smtp.host', 'channels[1]', 'rules.disk_low', 'channels']);
  assert.deepEqual(
    [...got.channels.entries()],
    [
      [0, ['url']],
      [1, ['smtp.host', '']],
    ],
  );
  assert.deepEqual(got.other, ['rules.disk_low', 'channels']);
});

test('new channel ids fit the server rule', () => {
  for (let i = 0; i < 20; i++) assert.match(newChannelId(), /^[a-z0-9-]{1,40}$/);
});

test('the lists of the screen are the shared ones (kept apart so the interface does not load zod for them)', () => {
  assert.deepEqual([...KINDS], [...NOTIFICATION_KINDS]);
  assert.deepEqual([...CHANNEL_KINDS], [...SHARED_CHANNEL_KINDS]);
  assert.deepEqual([...FORMATS], [...WEBHOOK_FORMATS]);
  assert.deepEqual([...SECURITIES], [...SMTP_SECURITY]);
});

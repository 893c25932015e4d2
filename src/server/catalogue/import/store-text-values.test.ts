import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accepted, rendered } from './store-quirks-kit.ts';

// Issue #26, class 2: yes/no and number values where compose reads text.
test('class 2, dynamic compose: yes/no and number values reach compose as text (environment map and list, labels, sysctls, command)', async () => {
  const { doc } = rendered('flags-tipi');
  const main = doc.services['flags-tipi'];
  assert.deepEqual(main.environment, {
    DISABLE_UPDATES: 'false',
    ENABLE_METRICS: 'true',
    MAX_UPLOAD_MB: '512',
    SIGNUPS: 'false',
    WORKERS: '4',
    LISTEN_PORT: '8770',
    TZ: 'UTC',
  });
  // Runtipi's extraLabels are the service's labels.
  assert.deepEqual(main.labels, { 'com.centurylinklabs.watchtower.enable': 'false', 'org.example.tier': 'web' });
  assert.deepEqual(main.sysctls, { 'net.core.somaxconn': '1024' });
  assert.deepEqual(main.extra_hosts, ['host.docker.internal:host-gateway']);
  const worker = doc.services['flags-tipi-worker'];
  assert.deepEqual(worker.command, ['sleep', '4']);
  assert.deepEqual(worker.environment, { VERBOSE: 'true', RETRIES: '3', OPEN: 'false', TZ: 'UTC' });
  await accepted('flags-tipi');
});

test('class 2, static compose: a whole yes/no or number field in environment, labels, user and sysctls is text', async () => {
  const svc = rendered('flags-yml-tipi').doc.services['flags-yml-tipi'];
  assert.deepEqual(svc.environment, { TELEMETRY: 'true', CACHE_MB: '64', READ_ONLY: 'false', TZ: 'UTC' });
  assert.deepEqual(svc.labels, { 'com.example.backup': 'true', 'com.example.weight': '10' });
  assert.equal(svc.user, '1000');
  assert.deepEqual(svc.sysctls, { 'net.ipv4.ip_unprivileged_port_start': '0' });
  assert.deepEqual(svc.extra_hosts, ['db.local:127.0.0.1']);
  await accepted('flags-yml-tipi');
});

test('class 2, CasaOS: yes/no and number labels are text', async () => {
  const svc = rendered('dollar-casa').doc.services.dollar;
  assert.deepEqual(svc.labels, { 'com.example.backup': 'true', 'com.example.weight': '10' });
  assert.equal(svc.environment.SHOW_PRICES, 'true');
  assert.equal(svc.environment.MAX_ITEMS, '25');
});

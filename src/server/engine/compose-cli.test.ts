import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isAppError } from '../core/errors.ts';
import { createComposeCli } from './compose-cli.ts';

// The engine's own words when its address pools are used up mean nothing to a user: Kade says what happened
// and what to change. A stand-in `docker-compose` prints exactly what compose prints then.
test('an engine out of address pools is network_pool_exhausted, in plain words naming what to change', async () => {
  const bin = mkdtempSync(join(tmpdir(), 'kade-compose-'));
  const script = join(bin, 'docker-compose');
  writeFileSync(
    script,
    `#!/bin/sh
for a in "$@"; do [ "$a" = version ] && exit 0; done
echo 'Creating network "kadetest-x_default" with the default driver' >&2
echo 'could not find an available, non-overlapping IPv4 address pool among the defaults to assign to the network' >&2
exit 1
`,
  );
  chmodSync(script, 0o755);
  const compose = createComposeCli({ socketPath: '/nonexistent.sock' }, 'v1', { env: { PATH: `${bin}:/usr/bin:/bin` } });
  await assert.rejects(
    compose.up({ name: 'kadetest-x', dir: bin, file: join(bin, 'docker-compose.yml') }),
    (e: unknown) =>
      isAppError(e) &&
      e.code === 'network_pool_exhausted' &&
      /no free address block left for the network of 'kadetest-x'/.test(e.message) &&
      /default-address-pools/.test(e.message) &&
      /SVC_APP_SUBNET_POOL/.test(e.message),
  );
});

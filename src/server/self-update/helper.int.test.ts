import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseEnv } from '../stacks/store/env-file.ts';
import { writeTag } from './helper.ts';

test('SVC_TAG is changed in place in .env; every other line and the mode stay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-self-update-'));
  try {
    const env = join(dir, '.env');
    const before = '# Written by install.sh\nSVC_IMAGE=127.0.0.1:5000/kade\nSVC_TAG=v0.1.00\nBASE_DIR="/srv/kade dir"\nSECRET=a$b\n';
    writeFileSync(env, before, { mode: 0o600 });
    writeTag(env, 'v0.1.01', 'v1');
    const after = readFileSync(env, 'utf8');
    assert.equal(after, before.replace('SVC_TAG=v0.1.00', 'SVC_TAG="v0.1.01"'));
    assert.equal(statSync(env).mode & 0o777, 0o600);
    assert.equal(parseEnv(after).SVC_TAG, 'v0.1.01');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a .env without SVC_TAG (the compose default tag) gets the line appended; a missing .env is created 0600', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kade-self-update-'));
  try {
    const env = join(dir, '.env');
    writeFileSync(env, 'SVC_IMAGE=ghcr.io/acme/kade', { mode: 0o640 });
    writeTag(env, 'v0.2.00-beta', 'v2');
    assert.equal(readFileSync(env, 'utf8'), 'SVC_IMAGE=ghcr.io/acme/kade\nSVC_TAG="v0.2.00-beta"\n');
    assert.equal(statSync(env).mode & 0o777, 0o640);
    rmSync(env);
    writeTag(env, 'v0.2.00', 'v1');
    assert.deepEqual({ ...parseEnv(readFileSync(env, 'utf8')) }, { SVC_TAG: 'v0.2.00' });
    assert.equal(statSync(env).mode & 0o777, 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

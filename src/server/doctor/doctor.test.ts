import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareFolder, foldersToCompare, hostPathOf } from './mounts.ts';
import { formatReport } from './report-text.ts';
import { repr } from './repr.ts';

const FIX = 'cd /opt/kade && docker compose up -d --force-recreate';

test('repr shows trailing spaces, control characters and invisible code points', () => {
  assert.equal(repr('/srv/kade/stacks'), '"/srv/kade/stacks"');
  assert.equal(repr('/srv/stacks '), '"/srv/stacks "');
  assert.equal(repr('/srv/a\tb\nc\r'), '"/srv/a\\tb\\nc\\r"');
  assert.equal(repr('/srv/\x1b[0m\x7f'), '"/srv/\\x1b[0m\\x7f"');
  assert.equal(repr('/srv/"q"\\'), '"/srv/\\"q\\"\\\\"');
  assert.equal(repr('/srv/no\u00a0break\u200bzw\ufeff'), '"/srv/no\\u{a0}break\\u{200b}zw\\u{feff}"');
  assert.equal(repr('/srv/café/日本'), '"/srv/café/日本"');
});

test('a folder missing in the container while the host has it is an error with the route back', () => {
  const c = compareFolder('/srv/kade', '/srv/kade', 'missing', 3, FIX);
  assert.equal(c.status, 'error');
  assert.match(c.message, /"\/srv\/kade" is missing in the container but exists on the host with 3 entries/);
  assert.equal(c.fix, FIX);
});

test('a folder empty in the container while the host has content is a different error with the same route back', () => {
  const c = compareFolder('/srv/kade/stacks', '/srv/kade/stacks', 0, 2, FIX);
  assert.equal(c.status, 'error');
  assert.match(c.message, /is empty in the container while the host has 2 entries/);
  assert.doesNotMatch(c.message, /missing/);
  assert.equal(c.fix, FIX);
});

test('equal counts are fine, unequal ones a warning, an empty folder on both sides fine', () => {
  assert.equal(compareFolder('/b', '/b', 4, 4, FIX).status, 'ok');
  assert.equal(compareFolder('/b', '/b', 0, 0, FIX).status, 'ok');
  const differ = compareFolder('/b', '/b', 4, 5, FIX);
  assert.equal(differ.status, 'warn');
  assert.equal(differ.fix, null);
});

test('missing on both sides is a warning; content inside but nothing on the host is an error; an unknown host side a warning', () => {
  assert.equal(compareFolder('/b', '/b', 'missing', 'missing', FIX).status, 'warn');
  const ghost = compareFolder('/b', '/h', 2, 'missing', FIX);
  assert.equal(ghost.status, 'error');
  assert.match(ghost.message, /on the host "\/h"/);
  const unknown = compareFolder('/b', '/b', 2, null, FIX, 'probe image missing');
  assert.equal(unknown.status, 'warn');
  assert.match(unknown.message, /probe image missing/);
  assert.equal(compareFolder('/b', '/b', 'missing', null, FIX).status, 'error');
});

test('host paths go through the deepest bind mount; folders are compared once each', () => {
  const mounts = [
    { source: '/data/kade', destination: '/srv/kade' },
    { source: '/mnt/big/stacks', destination: '/srv/kade/stacks' },
  ];
  assert.equal(hostPathOf('/srv/kade', mounts), '/data/kade');
  assert.equal(hostPathOf('/srv/kade/appdata', mounts), '/data/kade/appdata');
  assert.equal(hostPathOf('/srv/kade/stacks/x', mounts), '/mnt/big/stacks/x');
  assert.equal(hostPathOf('/srv/kadeother', mounts), '/srv/kadeother');
  assert.deepEqual(foldersToCompare('/srv/kade', ['/srv/kade/stacks', '/srv/kade/appdata/'], [...mounts, { source: '/x', destination: '/elsewhere' }]), [
    '/srv/kade',
    '/srv/kade/stacks',
    '/srv/kade/appdata',
  ]);
});

test('the text report: one OK|WARN|ERROR line per check, the fix only for findings, details indented', () => {
  const text = formatReport({
    ok: false,
    checks: [
      { id: 'a', status: 'ok', message: 'fine', code: 'store_ok', params: { count: 1 }, fix: 'never shown' },
      { id: 'b', status: 'warn', message: 'hmm', code: 'store_empty', params: { count: 0 }, fix: null },
      {
        id: 'c',
        status: 'error',
        message: 'broken',
        code: 'account_mismatch',
        params: { svc_uid: 1, uid: 0 },
        fix: 'chmod 600 /opt/kade/.env',
        details: ['"x": not an app'],
      },
    ],
  });
  assert.equal(text, 'OK fine\nWARN hmm\nERROR broken\n  fix: chmod 600 /opt/kade/.env\n  - "x": not an app\n');
});

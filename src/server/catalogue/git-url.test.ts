import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkGitUrl, redactUrl } from './git-url.ts';

test('http(s), ssh and scp-style addresses are accepted', () => {
  assert.equal(checkGitUrl('https://example.org/a/b.git'), 'http');
  assert.equal(checkGitUrl('http://127.0.0.1:8080/repo.git'), 'http');
  assert.equal(checkGitUrl('ssh://git@example.org/a/b.git'), 'ssh');
  assert.equal(checkGitUrl('git@example.org:a/b.git'), 'scp');
});

test('ext::, file://, local paths and option-like values are refused before git runs', () => {
  for (const bad of [
    'ext::sh -c touch% /tmp/pwned',
    'EXT::sh',
    'file:///etc',
    'FILE:///etc',
    '/srv/repo.git',
    './repo',
    '../repo',
    '-uhttps://x',
    '--upload-pack=touch /tmp/x',
    'https://example.org/a b',
    'https://-oProxyCommand=x/a',
    'ssh://-oProxyCommand=x@h/a',
    'fd::17',
    'git://example.org/a',
    '',
  ]) {
    assert.throws(() => checkGitUrl(bad), { code: 'invalid_git_url' }, bad);
  }
});

test('credentials in a URL are masked for display', () => {
  assert.equal(redactUrl('https://user:tok@example.org/x'), 'https://user:***@example.org/x');
  assert.equal(redactUrl('https://example.org/x'), 'https://example.org/x');
});

test('credentials in an http(s) address are refused: the token field is the one place for them', () => {
  for (const bad of ['https://user:tok@example.org/x.git', 'http://tok@example.org/x.git', 'ssh://git:pw@example.org/x.git']) {
    assert.throws(() => checkGitUrl(bad), { code: 'invalid_git_url' }, bad);
  }
});

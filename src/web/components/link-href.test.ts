import assert from 'node:assert/strict';
import { test } from 'node:test';
import { httpHref } from './link-href.ts';

test('http and https addresses become links', () => {
  assert.equal(httpHref('http://192.168.1.10:8080/'), 'http://192.168.1.10:8080/');
  assert.equal(httpHref('https://wiki.example.org/login'), 'https://wiki.example.org/login');
  assert.equal(httpHref('HTTPS://Example.org'), 'https://example.org/');
});

test('script, data and other schemes, relative and broken addresses stay text', () => {
  for (const bad of [
    'javascript://example.org/%0Aalert(document.cookie)',
    'JavaScript:alert(1)',
    ' javascript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'ftp://example.org/',
    '//evil.example/',
    '/apps/blog',
    'not a url',
    '',
    'http://',
  ]) {
    assert.equal(httpHref(bad), null, bad);
  }
});

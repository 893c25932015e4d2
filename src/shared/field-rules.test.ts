import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkField, parseConnectValue, ruleMessage } from './field-rules.ts';
import { TemplateField } from './template.ts';

const field = (f: Record<string, unknown>) => TemplateField.parse({ id: 'f', label: 'F', ...f });
const code = (f: Record<string, unknown>, v: string | number | boolean | undefined) => checkField(field(f), v)?.code ?? null;

test('e-mail, url and port are checked by type', () => {
  assert.equal(code({ type: 'email' }, 'abc'), 'email');
  assert.equal(code({ type: 'email' }, 'a@b'), 'email');
  assert.equal(code({ type: 'email' }, 'me@example.org'), null);
  assert.equal(code({ type: 'url' }, 'example.org'), 'url');
  assert.equal(code({ type: 'url' }, 'https://example.org/x'), null);
  for (const bad of ['99999', '0', '80.5', 'abc', ' 1e3', -1, 70000]) assert.equal(code({ type: 'port' }, bad), 'port', String(bad));
  assert.equal(code({ type: 'port' }, '8080'), null);
  assert.equal(code({ type: 'port' }, 65535), null);
});

test('numbers keep to min and max; selects to their options', () => {
  assert.equal(code({ type: 'number', min: 1, max: 10 }, '0'), 'min');
  assert.equal(code({ type: 'number', min: 1, max: 10 }, 11), 'max');
  assert.equal(code({ type: 'number' }, 'ten'), 'number');
  assert.equal(code({ type: 'number', min: 1, max: 10 }, '5'), null);
  const sel = { type: 'select', options: [{ value: 'a', label: 'A' }] };
  assert.equal(code(sel, 'b'), 'option');
  assert.equal(code(sel, 'a'), null);
});

test('required, generate and blank values', () => {
  assert.equal(code({ required: true }, ''), 'required');
  assert.equal(code({ required: true }, '  '), 'required');
  assert.equal(code({ required: true, secret: true, generate: true }, ''), null);
  assert.equal(checkField(field({ required: true }), '', false), null);
  assert.equal(code({ type: 'email' }, ''), null);
});

test('strong passwords, minimum length and patterns', () => {
  const strong = { type: 'password', secret: true, strong: true };
  assert.equal(code(strong, '1'), 'min_length');
  assert.equal(code(strong, 'abcdefghijkl'), 'weak');
  assert.equal(code(strong, 'Abcdefghijk1'), null);
  assert.equal(code(strong, 'correct horse battery staple'), null);
  assert.equal(code({ type: 'password', min_length: 6 }, '12345'), 'min_length');
  assert.equal(code({ pattern: '[a-z]+\\.[a-z]+' }, 'example.org'), null);
  assert.equal(code({ pattern: '[a-z]+\\.[a-z]+' }, 'example.org/x'), 'pattern');
  assert.throws(() => field({ pattern: '(' }));
  assert.equal(code({ max_length: 3 }, 'abcd'), 'too_long');
  assert.equal(code({ max_length: 3 }, 'äöü'), null);
});

test('a catastrophic pattern answers at once; one RE2 cannot match is refused naming the field', () => {
  assert.equal(code({ pattern: '(a+)+' }, `${'a'.repeat(40)}!`), 'pattern');
  assert.equal(code({ pattern: '(x+x+)+y' }, 'x'.repeat(30)), 'pattern');
  assert.equal(code({ pattern: '(x+x+)+y' }, 'xxy'), null);
  const r = TemplateField.safeParse({ id: 'code', label: 'Code', pattern: '(?=x)x' });
  assert.equal(r.success, false);
  assert.deepEqual(r.error?.issues[0]?.path, ['pattern']);
  assert.match(r.error?.issues[0]?.message ?? '', /^the pattern of field 'code' cannot be used: invalid or unsupported Perl syntax: `\(\?=`/);
});

test('a connect value is scheme://host:port with the field scheme and nothing else', () => {
  const c = { connect: { app: 'ollama', scheme: 'http', port: 11434 } };
  assert.equal(code(c, 'http://host.docker.internal:11434'), null);
  for (const bad of ['ollama', 'http://http://ollama:11434:11434', 'https://h:1', 'http://h', 'http://h:1/x', 'http://h:99999'])
    assert.equal(code(c, bad), 'connect', bad);
  assert.deepEqual(parseConnectValue('postgres://host.docker.internal:15432', 'postgres'), { host: 'host.docker.internal', port: 15432 });
});

test('the English message names the field and fills the parameters', () => {
  const i = checkField(field({ type: 'port' }), '99999');
  assert.ok(i);
  assert.equal(ruleMessage('web_port', i), 'web_port must be a port between 1 and 65535');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOSTILE_VALUES } from '../../../../test/helpers/hostile-values.ts';
import { ENV_MASK, maskEnv, mergeEnv, parseEnv, quoteEnvValue, unmaskEnv } from './env-file.ts';

for (const dialect of ['v1', 'v2'] as const) {
  test(`every hostile value survives a write and a read in the ${dialect} dialect`, () => {
    const env = Object.fromEntries(HOSTILE_VALUES.map((v, i) => [`K${i}`, v]));
    const text = mergeEnv('', env, new Set(), dialect);
    assert.equal(text.split('\n').length, HOSTILE_VALUES.length + 1, 'one line per value, newlines escaped');
    assert.deepEqual({ ...parseEnv(text) }, env);
  });
}

test('v2 escapes every $; v1 breaks only ${ and a trailing backslash (python-dotenv has no escape for them)', () => {
  assert.equal(quoteEnvValue('a$b${c}', 'v2'), '"a\\$b\\${c}"');
  assert.equal(quoteEnvValue('a$b${c}', 'v1'), '"a$b${KADE_LITERAL:-$}{c}"');
  assert.equal(quoteEnvValue('x\\', 'v1'), '"x${KADE_LITERAL:-\\\\}"');
});

test('older files with single-quoted values and lines a user added read as before', () => {
  assert.deepEqual({ ...parseEnv('A=\'one $x\'\nB=two # note\nexport C="3"\n') }, { A: 'one $x', B: 'two', C: '3' });
  const merged = mergeEnv("OLD='gone'\nMINE=kept\n# comment\n", { NEW: 'n' }, new Set(['OLD']), 'v2');
  assert.equal(merged, 'NEW="n"\nMINE=kept\n# comment\n');
});

test('comments hide a commented-out secret and every known secret value in them; saved unchanged, each comment comes back byte for byte', () => {
  const text = [
    '#DB_PASSWORD=previous-secret',
    '# export API_TOKEN="old-token-1"',
    '#   MAIL_KEY = old-mail-key',
    '# the password is s3cr3t-now, rotated from previous-secret',
    '# old: postgres://app:urlpass99@db/app',
    '#TITLE=Hello',
    'DB_PASSWORD=s3cr3t-now',
    '',
  ].join('\n');
  const { content } = maskEnv(text, []);
  for (const secret of ['previous-secret', 'old-token-1', 'old-mail-key', 's3cr3t-now', 'urlpass99'])
    assert.ok(!content.includes(secret), `${secret} is hidden:\n${content}`);
  assert.match(content, new RegExp(`^#DB_PASSWORD=${ENV_MASK}$`, 'm'), 'the key of a commented-out secret stays readable');
  assert.match(content, new RegExp(`^# the password is ${ENV_MASK}, rotated from ${ENV_MASK}$`, 'm'));
  assert.match(content, /^#TITLE=Hello$/m, 'a comment without a secret stays as it is');
  assert.equal(unmaskEnv(content, text, []), text, 'the masked text saved unchanged is the stored file');
  const edited = content.replace('#TITLE=Hello', '#TITLE=Bye');
  assert.equal(unmaskEnv(edited, text, []), text.replace('#TITLE=Hello', '#TITLE=Bye'), 'an edit elsewhere keeps every masked comment');
});

test('a commented-out assignment of a key the template keeps secret is masked too', () => {
  const text = '#ADMIN_LOGIN=first-login-value\nADMIN_LOGIN=second-login-value\n';
  const { content } = maskEnv(text, ['ADMIN_LOGIN']);
  assert.equal(content, `#ADMIN_LOGIN=${ENV_MASK}\nADMIN_LOGIN=${ENV_MASK}\n`);
  assert.equal(unmaskEnv(content, text, ['ADMIN_LOGIN']), text);
});

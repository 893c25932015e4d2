import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HOSTILE_VALUES } from '../../../../test/helpers/hostile-values.ts';
import { mergeEnv, parseEnv, quoteEnvValue } from './env-file.ts';

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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PATTERN_LENGTH, matchesWhole, patternProblem } from './field-pattern.ts';

// The patterns that held Kade's event loop for 87 s and 17.5 s with JavaScript's RegExp (issue #23).
const CATASTROPHIC: [string, string][] = [
  ['(a+)+', `${'a'.repeat(40)}!`],
  ['(x+x+)+y', 'x'.repeat(30)],
  ['(a|aa)+', `${'a'.repeat(60)}!`],
  ['(.*a){20}', 'a'.repeat(4000)],
];

test('catastrophic patterns for a backtracking engine are matched in linear time, also on a 4000-character value', () => {
  for (const [p, v] of CATASTROPHIC) {
    assert.equal(patternProblem(p), null, p);
    assert.equal(matchesWhole(p, v), p === '(.*a){20}', p);
    // Only a bound that a backtracking engine could never keep (it takes minutes); not a benchmark.
    const long = `${v[0]?.repeat(3999)}!`;
    const start = performance.now();
    matchesWhole(p, long);
    assert.ok(performance.now() - start < 2000, `${p} on 4000 characters`);
  }
});

test('the whole value must match, as a template author writes it (no anchors needed)', () => {
  assert.ok(matchesWhole('[a-z]{3}', 'abc'));
  assert.ok(!matchesWhole('[a-z]{3}', 'abcd'));
  assert.ok(matchesWhole('a|ab', 'ab'));
  assert.ok(matchesWhole('é+', 'éé'));
  assert.ok(matchesWhole('.', '😀'));
});

test('lookarounds, backreferences, invalid syntax, oversized patterns are refused with RE2 reason; they match nothing', () => {
  for (const [p, why] of [
    ['(?=x)x', 'invalid or unsupported Perl syntax: `(?=`'],
    ['(?!x).', 'invalid or unsupported Perl syntax: `(?!`'],
    ['(?<=a)b', 'invalid named capture'],
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
    ['[', 'missing closing ]'],
    ['(?:.?){400}', 'too large once compiled'],
    ['a'.repeat(MAX_PATTERN_LENGTH + 1), `longer than ${MAX_PATTERN_LENGTH} characters`],
  ]) {
    const problem = patternProblem(p as string);
    assert.ok(problem?.includes(why as string), `${p}: ${problem}`);
    assert.equal(matchesWhole(p as string, 'x'), false);
  }
});

/**
 * Template field patterns, matched with RE2 (re2js) on the server and in the browser alike. A
 * backtracking engine (JavaScript's RegExp) takes exponential time on patterns such as `(a+)+`, and
 * one such check blocked Kade's whole event loop for minutes (issue #23); RE2 matches in time
 * linear in the value's length times the pattern's compiled size, and both are capped here.
 * Lookarounds and backreferences have no linear-time match: RE2 refuses them, so does Kade.
 */
import { RE2JS } from 're2js';

export const MAX_PATTERN_LENGTH = 200;
/**
 * RE2 program instructions a pattern may compile to. The match costs up to this many steps per
 * character: at 500 a 4000-character value takes about 0.1 s in the worst case measured (at 1000,
 * 0.4 s), and the patterns templates use stay below it (a host name or IPv4 address: 305).
 */
export const MAX_PATTERN_PROGRAM = 500;

type Compiled = { re: RE2JS } | { problem: string };
const cache = new Map<string, Compiled>();
// Patterns come from the templates of the configured repos; the cap only guards against a flood.
const CACHE_LIMIT = 2000;

function compile(pattern: string): Compiled {
  if (pattern.length > MAX_PATTERN_LENGTH) return { problem: `is longer than ${MAX_PATTERN_LENGTH} characters` };
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    // RE2's own words, e.g. "invalid or unsupported Perl syntax: `(?=`".
    const why = (e as Error).message.replace(/^error parsing regexp: /, '');
    return { problem: `cannot be used: ${why} (patterns use RE2 syntax, without lookarounds or backreferences)` };
  }
  if (re.programSize() > MAX_PATTERN_PROGRAM) return { problem: `is too large once compiled (more than ${MAX_PATTERN_PROGRAM} steps per character)` };
  return { re };
}

function compiled(pattern: string): Compiled {
  let c = cache.get(pattern);
  if (c === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    c = compile(pattern);
    cache.set(pattern, c);
  }
  return c;
}

/** Why Kade cannot match with this pattern (a phrase after "pattern …"), or null when it can. */
export function patternProblem(pattern: string): string | null {
  const c = compiled(pattern);
  return 'problem' in c ? c.problem : null;
}

/** Whether the whole value matches; a pattern Kade cannot use matches nothing (templates with one are refused at load). */
export function matchesWhole(pattern: string, value: string): boolean {
  const c = compiled(pattern);
  return 're' in c && c.re.testExact(value);
}

/**
 * A path as the doctor prints it: quoted, with every character that does not show as itself escaped
 * (control characters, invisible and line-breaking code points), so trailing spaces, tabs and newlines
 * in LIBRARY_DIR or DATA_DIR are visible.
 */
export function repr(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (ch === '\\') out += '\\\\';
    else if (ch === '"') out += '\\"';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (invisible(cp)) out += `\\u{${cp.toString(16)}}`;
    else out += ch;
  }
  return `${out}"`;
}

// C1 controls, no-break and other odd spaces, zero-width and direction marks, line/paragraph separators, BOM.
const invisible = (cp: number): boolean =>
  (cp >= 0x80 && cp <= 0xa0) ||
  cp === 0xad ||
  (cp >= 0x2000 && cp <= 0x200f) ||
  (cp >= 0x2028 && cp <= 0x202f) ||
  (cp >= 0x2060 && cp <= 0x206f) ||
  cp === 0x3000 ||
  cp === 0xfeff;

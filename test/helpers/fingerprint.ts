import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file below a folder with its bytes, mode and modification time: equal lists mean nothing was touched. */
export function fingerprint(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      const st = lstatSync(p);
      if (e.isDirectory()) walk(p);
      else out.push(`${p.slice(root.length)} ${st.mode.toString(8)} ${st.mtimeMs} ${createHash('sha256').update(readFileSync(p)).digest('hex')}`);
    }
  };
  walk(root);
  return out;
}

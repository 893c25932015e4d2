import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A job's log: one file per job under SVC_JOBS, one line per entry, read back by line offset. */
export function createJobLogStore(dir: string) {
  const file = (id: string) => join(dir, `${id}.log`);
  return {
    append(id: string, lines: string[]): void {
      if (lines.length > 0) appendFileSync(file(id), `${lines.join('\n')}\n`);
    },
    read(id: string, offset: number): string[] {
      const f = file(id);
      if (!existsSync(f)) return [];
      const text = readFileSync(f, 'utf8');
      const all = text.length === 0 ? [] : text.replace(/\n$/, '').split('\n');
      return all.slice(offset);
    },
  };
}

export type JobLogStore = ReturnType<typeof createJobLogStore>;

import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/fs-atomic.ts';

/** What a job records about itself while it runs (e.g. the snapshot a reconfigure took), for the recovery after a crash. */
export type JobDetail = Record<string, string | number | boolean>;

/**
 * A job's log: one file per job under SVC_JOBS, one line per entry, read back by line offset;
 * beside it `<id>.json`, the job's detail, written atomically.
 */
export function createJobLogStore(dir: string) {
  const file = (id: string) => join(dir, `${id}.log`);
  const detailFile = (id: string) => join(dir, `${id}.json`);
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
    writeDetail(id: string, detail: JobDetail): void {
      writeFileAtomic(detailFile(id), `${JSON.stringify(detail)}\n`, 0o600);
    },
    readDetail(id: string): JobDetail {
      try {
        const v = JSON.parse(readFileSync(detailFile(id), 'utf8')) as unknown;
        return v && typeof v === 'object' && !Array.isArray(v) ? (v as JobDetail) : {};
      } catch {
        return {};
      }
    },
  };
}

export type JobLogStore = ReturnType<typeof createJobLogStore>;

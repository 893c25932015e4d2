import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DoctorReportT } from '../../shared/doctor.ts';

/** The uid of the running Kade server (the doctor may run as another account); this process's own when none is found. */
export function serverUid(procDir = '/proc'): number | null {
  let pids: string[] = [];
  try {
    pids = readdirSync(procDir).filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid);
  } catch {
    // No /proc: only this process is known.
  }
  for (const pid of pids) {
    try {
      const cmd = readFileSync(join(procDir, pid, 'cmdline'), 'utf8');
      if (!/dist\/server\/main\.js|scripts\/start\.mjs/.test(cmd)) continue;
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(join(procDir, pid, 'status'), 'utf8'))?.[1];
      if (uid !== undefined) return Number(uid);
    } catch {
      // A process that ended meanwhile.
    }
  }
  return process.getuid?.() ?? null;
}

/** The report as `install.sh --doctor` prints it: `OK|WARN|ERROR <what>`, then the fix and any details indented. */
export function formatReport(r: DoctorReportT): string {
  const lines: string[] = [];
  for (const c of r.checks) {
    lines.push(`${c.status === 'ok' ? 'OK' : c.status === 'warn' ? 'WARN' : 'ERROR'} ${c.message}`);
    if (c.status !== 'ok' && c.fix) lines.push(`  fix: ${c.fix}`);
    for (const d of c.details ?? []) lines.push(`  - ${d}`);
  }
  return `${lines.join('\n')}\n`;
}

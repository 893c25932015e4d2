import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * No child process of Kade outlives it (a `compose up` still recreating containers after the next
 * start rolled its job back would leave the app on the values the job said it undid). Three layers:
 * - every child runs in its own process group under `setpriv --pdeathsig KILL`: the kernel kills it
 *   when Kade's main thread dies (Node forks on the main thread; a worker thread must not call run());
 * - a watchdog (a constant `sh` script in a session of its own) holds a pipe from Kade and, when the
 *   pipe closes because Kade died, kills the process group of every child still listed: the helpers a
 *   child started, which the parent-death signal does not reach;
 * - a pid file per running child under SVC_DATA/children (pid, start time, boot, owner, command): the
 *   next start kills the groups of a dead owner's children before anything else, and never a process
 *   whose pid was reused (another start time or boot).
 * Without /proc (not Linux) or setpriv the layers that need them are left out; the others still work.
 */

interface ChildRecord {
  pid: number;
  /** Field 22 of /proc/<pid>/stat: clock ticks since boot; a reused pid has another one. */
  start: number;
  boot: string;
  owner: number;
  ownerStart: number;
  command: string[];
}

/** A process of a previous Kade that is still running, as the job log names it. */
export interface Survivor {
  pid: number;
  command: string;
}

interface ProcInfo {
  pgid: number;
  start: number;
  zombie: boolean;
}

let dir: string | null = null;
let pdeathsig: boolean | null = null;
let watchdog: ChildProcess | null = null;
let reaped: Promise<Survivor[]> = Promise.resolve([]);
const files = new Map<number, string>();
/** This process's start time and the boot it runs in, read once. */
let self: { start: number; boot: string } | null = null;

/** One process's group, start time and whether it is a zombie (gone but not reaped); null when there is none. */
function procInfo(pid: number): ProcInfo | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name may hold spaces and parentheses: the fields start after the last ')'.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pgid: Number(f[2]), start: Number(f[19]), zombie: f[0] === 'Z' || f[0] === 'X' };
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}

/** Every live (not zombie) process of the group `pgid` started at or after `since`. */
function groupMembers(pgid: number, since: number): number[] {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
  return pids.map(Number).filter((p) => {
    const i = procInfo(p);
    return i !== null && !i.zombie && i.pgid === pgid && i.start >= since;
  });
}

/** Whether `setpriv --pdeathsig` works here (util-linux 2.33+; missing in images without util-linux). Asked once. */
export function hasPdeathsig(): boolean {
  if (pdeathsig === null) {
    const r = process.platform === 'linux' ? spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore', timeout: 5_000 }) : null;
    pdeathsig = r !== null && r.status === 0;
  }
  return pdeathsig;
}

// dash's kill takes no `--`; `-9 -<pgid>` is the spelling both dash and bash read as a process group.
const WATCHDOG = [
  'groups=" "',
  'while IFS= read -r line; do',
  '  case $line in',
  '    +*) groups="$groups${line#+} " ;;',
  '    -*) g=${line#-}; case $groups in *" $g "*) groups="${groups%% $g *} ${groups#* $g }" ;; esac ;;',
  '  esac',
  'done',
  'for g in $groups; do kill -9 "-$g" 2>/dev/null; done',
].join('\n');

function startWatchdog(): void {
  if (watchdog || process.platform !== 'linux') return;
  const w = spawn('sh', ['-c', WATCHDOG], { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: { PATH: '/usr/bin:/bin' } });
  // The watchdog must neither keep Kade running nor take it down: it only matters once Kade is gone.
  w.unref();
  w.stdin?.on('error', () => {
    watchdog = null;
  });
  (w.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  w.on('error', () => {
    watchdog = null;
  });
  w.on('exit', () => {
    watchdog = null;
  });
  watchdog = w;
}

function tellWatchdog(line: string): void {
  if (watchdog?.stdin?.writable) watchdog.stdin.write(`${line}\n`);
}

/** Called by run() right after a child started (its own process group): the pid file and the watchdog's list. */
export function childStarted(pid: number, command: string[]): void {
  tellWatchdog(`+${pid}`);
  if (!dir) return;
  self ??= { start: procInfo(process.pid)?.start ?? -1, boot: bootId() };
  const rec: ChildRecord = { pid, start: procInfo(pid)?.start ?? -1, boot: self.boot, owner: process.pid, ownerStart: self.start, command };
  const file = join(dir, `${pid}.json`);
  try {
    writeFileSync(file, JSON.stringify(rec), { mode: 0o600 });
    files.set(pid, file);
  } catch {
    // A state folder removed under a test server: the parent-death signal and the watchdog still hold.
  }
}

/** Called by run() when the child has exited. */
export function childEnded(pid: number): void {
  tellWatchdog(`-${pid}`);
  const file = files.get(pid);
  if (!file) return;
  files.delete(pid);
  rmSync(file, { force: true });
}

/** Whether the Kade that recorded the child still runs (this one, or another process on the same folder). */
function ownerAlive(rec: ChildRecord, boot: string): boolean {
  if (rec.boot !== boot) return false;
  const owner = procInfo(rec.owner);
  return owner !== null && !owner.zombie && owner.start === rec.ownerStart;
}

/** The record's group, when the pid is still the child's (not reused): its live members. */
function survivorsOf(rec: ChildRecord, boot: string): number[] {
  if (rec.boot !== boot || rec.start < 0) return [];
  const leader = procInfo(rec.pid);
  if (leader && leader.start !== rec.start) return [];
  return groupMembers(rec.pid, rec.start);
}

/** SIGKILL to the whole group; member by member when the group call fails (the group ended meanwhile). */
function killGroup(pgid: number, members: number[]): void {
  try {
    process.kill(-pgid, 'SIGKILL');
    return;
  } catch {
    // Falls through to the members one by one.
  }
  for (const m of members) {
    try {
      process.kill(m, 'SIGKILL');
    } catch {
      // This one is gone already.
    }
  }
}

function readRecord(path: string): ChildRecord | null {
  try {
    const r = JSON.parse(readFileSync(path, 'utf8')) as Partial<ChildRecord>;
    if (typeof r.pid !== 'number' || typeof r.start !== 'number' || typeof r.owner !== 'number') return null;
    return {
      pid: r.pid,
      start: r.start,
      boot: String(r.boot ?? ''),
      owner: r.owner,
      ownerStart: Number(r.ownerStart ?? -1),
      command: Array.isArray(r.command) ? r.command.map(String) : [],
    };
  } catch {
    return null;
  }
}

/**
 * Makes `folder` (SVC_DATA/children) the place run() records its children, starts the watchdog, and ends
 * the children a previous Kade left running: their process groups get SIGKILL now; `survivorsGone()`
 * waits until they are gone. Returns what was killed. Called once at start, before anything else runs.
 */
export function setChildRegistry(folder: string): Survivor[] {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  dir = folder;
  hasPdeathsig();
  startWatchdog();
  const boot = bootId();
  const killed: ChildRecord[] = [];
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const rec = /^\d+\.json$/.test(name) ? readRecord(path) : null;
    if (rec && ownerAlive(rec, boot)) continue;
    const members = rec ? survivorsOf(rec, boot) : [];
    if (rec && members.length > 0) {
      killGroup(rec.pid, members);
      killed.push(rec);
    }
    rmSync(path, { force: true });
  }
  reaped = waitGone(killed);
  return killed.map(survivor);
}

const survivor = (rec: ChildRecord): Survivor => ({ pid: rec.pid, command: rec.command.join(' ') });

async function waitGone(killed: ChildRecord[], timeoutMs = 10_000): Promise<Survivor[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = killed.filter((rec) => groupMembers(rec.pid, rec.start).length > 0);
    if (left.length === 0 || Date.now() > deadline) return left.map(survivor);
    await sleep(50);
  }
}

/**
 * Resolves when the children a previous Kade left running are gone, with those that are not (could not
 * be killed within 10 s): the recovery of a cut-off job waits for this before it touches files or runs `up`.
 */
export function survivorsGone(): Promise<Survivor[]> {
  return reaped;
}

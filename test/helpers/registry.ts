import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);
const REGISTRY_BIN = '/usr/bin/docker-registry';

export interface RegistryOptions {
  /** When set, the registry requires HTTP basic auth with this account (bcrypt htpasswd). */
  htpasswd?: { user: string; password: string };
}

export interface Registry {
  /** `127.0.0.1:PORT`; the engine treats 127.0.0.0/8 as insecure, so plain-HTTP pushes work. */
  host: string;
  close(): Promise<void>;
}

/** Starts Debian's docker-registry (distribution 2.8) on 127.0.0.1 with temp storage. */
export async function startRegistry(opts: RegistryOptions = {}): Promise<Registry> {
  const dir = await mkdtemp(join(tmpdir(), 'kade-registry-'));
  try {
    await mkdir(join(dir, 'storage'));
    let auth = '';
    if (opts.htpasswd) {
      const { stdout } = await execFileP('htpasswd', ['-Bbn', opts.htpasswd.user, opts.htpasswd.password]);
      await writeFile(join(dir, 'htpasswd'), `${stdout.trim()}\n`);
      auth = `auth:\n  htpasswd:\n    realm: kade-test\n    path: ${join(dir, 'htpasswd')}\n`;
    }
    // A port can be taken between probing and binding; try a few.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const started = await launch(dir, port, auth);
      if (started.ok) return started.registry;
      if (attempt >= 3) throw new Error(`docker-registry did not start: ${started.log}`);
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

type Launch = { ok: true; registry: Registry } | { ok: false; log: string };

async function launch(dir: string, port: number, auth: string): Promise<Launch> {
  const host = `127.0.0.1:${port}`;
  const config = join(dir, 'config.yml');
  await writeFile(
    config,
    [
      'version: 0.1',
      'log:',
      '  level: warn',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir, 'storage')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: ${host}`,
      `${auth}`,
    ].join('\n'),
  );
  const child = spawn(REGISTRY_BIN, ['serve', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d: Buffer) => {
    log = (log + d.toString('utf8')).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A test that forgets close() must not leave a registry running after the process.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  child.once('error', (err) => {
    log += `\n${err.message}`;
  });

  if (!(await waitReady(host, child))) {
    child.kill('SIGKILL');
    await exited;
    return { ok: false, log };
  }
  return {
    ok: true,
    registry: {
      host,
      async close() {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
          await exited;
          clearTimeout(timer);
        }
        await rm(dir, { recursive: true, force: true });
      },
    },
  };
}

/** True once `GET /v2/` answers at all (401 counts: auth is on). */
async function waitReady(host: string, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    try {
      const res = await fetch(`http://${host}/v2/`, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.status === 200 || res.status === 401) return true;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  return false;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

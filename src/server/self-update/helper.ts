import { chownSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SelfUpdateRunT } from '../../shared/self-update.ts';
import { compareVersions, parseVersion } from '../../shared/version.ts';
import { errorMessage } from '../core/errors.ts';
import { writeFileAtomic } from '../core/fs-atomic.ts';
import type { Compose, ComposeVariant } from '../engine/compose.ts';
import { COMPOSE_SERVICE_LABEL, type Engine } from '../engine/engine.ts';
import { parseEnv, quoteEnvValue, rewriteEnvValues } from '../stacks/store/env-file.ts';
import type { HelperSpecT } from './helper-spec.ts';
import { readUpdateState, writeUpdateState } from './state-file.ts';

/**
 * Asks Kade inside its own container for /healthz (the image's health check does the same): works
 * whatever the container's network, and needs nothing but node, which every Kade image has.
 */
const HEALTH_SCRIPT = [
  "const b=(process.env.SVC_BIND||'').replace(/^\\[|\\]$/g,'');",
  "const h=!b||b==='0.0.0.0'||b==='::'?'127.0.0.1':b;",
  "fetch('http://'+(h.includes(':')?'['+h+']':h)+':'+(process.env.SVC_PORT||8420)+'/healthz',{signal:AbortSignal.timeout(3000)})",
  '.then(r=>r.text()).then(t=>process.stdout.write(t),()=>process.exit(1))',
].join('');

export interface HelperDeps {
  compose: Compose;
  engine: Pick<Engine, 'listContainers' | 'exec'>;
  log: (line: string) => void;
  now?: () => Date;
  pollMs?: number;
}

/** `.env` with SVC_TAG set (changed in place, or appended), keeping the file's mode and owner. */
export function writeTag(envPath: string, tag: string, dialect: ComposeVariant): void {
  const exists = existsSync(envPath);
  const text = exists ? readFileSync(envPath, 'utf8') : '';
  const st = exists ? statSync(envPath) : null;
  const has = Object.hasOwn(parseEnv(text), 'SVC_TAG');
  const next = has
    ? rewriteEnvValues(text, (k) => (k === 'SVC_TAG' ? tag : null), dialect)
    : `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}SVC_TAG=${quoteEnvValue(tag, dialect)}\n`;
  writeFileAtomic(envPath, next, st ? st.mode & 0o7777 : 0o600);
  if (st) chownSync(envPath, st.uid, st.gid);
}

/** The version the service's running container answers on /healthz; null while it does not answer. */
async function answeredVersion(s: HelperSpecT, engine: HelperDeps['engine']): Promise<string | null> {
  const list = await engine.listContainers({ project: s.project });
  const c = list.find((x) => x.labels[COMPOSE_SERVICE_LABEL] === s.service && x.state === 'running');
  if (!c) return null;
  const r = await engine.exec(c.id, { cmd: ['node', '-e', HEALTH_SCRIPT], timeoutMs: 10_000 });
  if (r.exitCode !== 0) return null;
  try {
    const body = JSON.parse(r.stdout) as { version?: unknown };
    return typeof body.version === 'string' ? body.version : null;
  } catch {
    return null;
  }
}

const sameVersion = (a: string, b: string) => {
  const x = parseVersion(a);
  const y = parseVersion(b);
  return x !== null && y !== null ? compareVersions(x, y) === 0 : a === b;
};

/**
 * The helper's work, run in a short-lived container on the new image (Kade cannot recreate itself from
 * inside): SVC_TAG in the working directory's .env, the service recreated with compose, then /healthz
 * polled until it answers the new version. When it does not within the bound, the old tag is written
 * back and the service recreated again. The result goes to SVC_DATA/self-update.json for the new Kade.
 */
export async function runSelfUpdateHelper(s: HelperSpecT, d: HelperDeps): Promise<SelfUpdateRunT['state']> {
  const now = d.now ?? (() => new Date());
  const project = { name: s.project, dir: s.workingDir, file: s.configFiles[0] as string, overrides: s.configFiles.slice(1) };
  const envPath = join(s.workingDir, '.env');
  const record = (state: SelfUpdateRunT['state'], message: string, previous: string | null) => {
    d.log(message);
    if (s.stateDir === null) return;
    try {
      writeUpdateState(s.stateDir, { previous, last: { action: s.action, state, from: s.from, to: s.to, at: now().toISOString(), message } });
    } catch (err) {
      d.log(`the result could not be written to ${s.stateDir}: ${errorMessage(err)}`);
    }
  };
  const previousNow = s.stateDir === null ? s.previous : (readUpdateState(s.stateDir).previous ?? s.previous);

  async function switchTo(tag: string): Promise<string | null> {
    writeTag(envPath, tag, await d.compose.variant());
    d.log(`SVC_TAG=${tag} written to ${envPath}; recreating ${s.service} of ${s.project}`);
    try {
      await d.compose.up(project, { onOutput: (t) => d.log(t.trimEnd()), timeoutMs: 300_000 });
    } catch (err) {
      return `compose up failed: ${errorMessage(err)}`;
    }
    const deadline = Date.now() + s.healthSeconds * 1000;
    let seen: string | null = null;
    while (Date.now() < deadline) {
      seen = await answeredVersion(s, d.engine).catch(() => null);
      if (seen !== null && sameVersion(seen, tag)) return null;
      await sleep(d.pollMs ?? 2000);
    }
    return seen === null ? `/healthz did not answer within ${s.healthSeconds} s` : `/healthz answered version ${seen}, not ${tag}`;
  }

  await sleep(s.delayMs);
  record('running', `${s.action === 'update' ? 'updating' : 'rolling back'} from ${s.from} to ${s.to}`, previousNow);
  const failure = await switchTo(s.to);
  if (failure === null) {
    // After an update the old tag is the way back; after a rollback there is none.
    record('done', `Kade ${s.to} is running (was ${s.from})`, s.action === 'update' ? s.from : null);
    return 'done';
  }
  d.log(`${s.to} failed: ${failure}; going back to ${s.from}`);
  const back = await switchTo(s.from);
  if (back === null) {
    record('rolled_back', `${s.to} did not come up (${failure}); rolled back to ${s.from}`, previousNow);
    return 'rolled_back';
  }
  record('failed', `${s.to} did not come up (${failure}), and going back to ${s.from} failed too (${back})`, previousNow);
  return 'failed';
}

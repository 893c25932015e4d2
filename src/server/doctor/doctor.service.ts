import type { DoctorCheckT, DoctorReportT } from '../../shared/doctor.ts';
import type { PathKey } from '../../shared/settings-keys.ts';
import { deviceOf, freeFor } from '../core/disk.ts';
import { errorMessage } from '../core/errors.ts';
import type { Compose } from '../engine/compose.ts';
import type { Engine } from '../engine/engine.ts';
import { checkPath, type PathRules, pathRefusal } from '../settings/path-check.ts';
import { readHostView } from './host-view.ts';
import { type BindMount, compareFolder, foldersToCompare, hostPathOf, seenHere } from './mounts.ts';
import { repr } from './repr.ts';
import { stackVerdicts, verdictCode, verdictLine } from './stack-verdicts.ts';

/** Below this many free bytes a folder's file system is a warning. */
export const LOW_DISK_BYTES = 2 * 1024 ** 3;

export interface DoctorDeps {
  engine: Pick<Engine, 'ping' | 'inspectContainer' | 'runContainer'>;
  compose: Compose;
  /** The folders this process uses (the stored settings where usable, else the boot configuration). */
  paths: Readonly<Record<PathKey, string>>;
  /** The folders as the settings store them (they differ from those in use when a stored one could not be used at start). */
  storedPaths?: () => Readonly<Record<PathKey, string>>;
  rules: PathRules;
  /** SVC_UID and SVC_GID from the environment, or null when unset. */
  svcUid: number | null;
  svcGid: number | null;
  /** The uid this process runs as (null where there are none). */
  processUid: number | null;
  /** Kade's own container id (or prefix); null outside a container. */
  ownContainerId: string | null;
  probeImage: string;
  /** The number of apps in the store cache (every template repo's index). */
  storeApps: () => number;
  lowDiskBytes?: number;
  /** The apps whose files compose would not run now (changed outside Kade, or refused by the policies), with why. */
  refusedFiles?: () => { name: string; message: string }[];
  probeLabels?: Record<string, string>;
}

export type DoctorPart = 'engine' | 'container' | 'mounts' | 'account' | 'disk' | 'paths' | 'stacks' | 'app_files' | 'store';
export const DOCTOR_PARTS: readonly DoctorPart[] = ['engine', 'container', 'mounts', 'account', 'disk', 'paths', 'stacks', 'app_files', 'store'];

const WORKDIR_LABEL = 'com.docker.compose.project.working_dir';

interface Own {
  check: DoctorCheckT;
  mounts: BindMount[];
  workdir: string | null;
}

const gib = (n: number) => `${(n / 1024 ** 3).toFixed(1)} GiB`;
const quoteSh = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

async function engineCheck(d: DoctorDeps): Promise<DoctorCheckT> {
  const [info, compose] = await Promise.allSettled([d.engine.ping(), d.compose.variant()]);
  if (info.status === 'rejected')
    return {
      id: 'engine',
      status: 'error',
      message: `the container engine does not answer: ${errorMessage(info.reason)}`,
      code: 'engine_down',
      params: { error: errorMessage(info.reason) },
      fix: 'sudo systemctl start docker',
    };
  if (compose.status === 'rejected')
    return {
      id: 'engine',
      status: 'error',
      message: `engine ${info.value.version} answers, but no compose was found: ${errorMessage(compose.reason)}`,
      code: 'engine_no_compose',
      params: { version: info.value.version, error: errorMessage(compose.reason) },
      fix: 'sudo apt-get install docker-compose-plugin',
    };
  return {
    id: 'engine',
    status: 'ok',
    message: `engine ${info.value.version} (API ${info.value.apiVersion}), compose ${compose.value}`,
    code: 'engine_ok',
    params: { version: info.value.version, api: info.value.apiVersion, compose: compose.value },
    fix: null,
  };
}

async function ownContainer(d: DoctorDeps): Promise<Own> {
  if (!d.ownContainerId)
    return {
      check: {
        id: 'own_container',
        status: 'ok',
        message: 'Kade does not run in a container (started from a checkout)',
        code: 'own_checkout',
        params: {},
        fix: null,
      },
      mounts: [],
      workdir: null,
    };
  try {
    const c = (await d.engine.inspectContainer(d.ownContainerId)) as {
      Name?: string;
      State?: { Status?: string; Health?: { Status?: string } };
      Mounts?: { Type?: string; Source?: string; Destination?: string }[];
      Config?: { Labels?: Record<string, string> };
    };
    const mounts = (c.Mounts ?? [])
      .filter((m) => m.Type === 'bind' && m.Source && m.Destination)
      .map((m) => ({ source: m.Source as string, destination: m.Destination as string }));
    const name = (c.Name ?? d.ownContainerId).replace(/^\//, '');
    const health = c.State?.Health?.Status;
    const status = health === 'unhealthy' ? 'warn' : 'ok';
    return {
      check: {
        id: 'own_container',
        status,
        message: `own container ${repr(name)}: ${c.State?.Status ?? 'unknown'}${health ? `, ${health}` : ''}`,
        code: health ? 'own_state_health' : 'own_state',
        params: { name: repr(name), state: c.State?.Status ?? 'unknown', ...(health ? { health } : {}) },
        fix: null,
      },
      mounts,
      workdir: c.Config?.Labels?.[WORKDIR_LABEL] ?? null,
    };
  } catch (err) {
    return {
      check: {
        id: 'own_container',
        status: 'warn',
        message: `own container ${d.ownContainerId} not found on the engine: ${errorMessage(err)}`,
        code: 'own_not_found',
        params: { id: d.ownContainerId, error: errorMessage(err) },
        fix: null,
      },
      mounts: [],
      workdir: null,
    };
  }
}

async function mountChecks(d: DoctorDeps, own: Own): Promise<DoctorCheckT[]> {
  // The route back in the compose command found beside the engine: `docker compose` (v2) or `docker-compose` (v1).
  const cli = (await d.compose.variant().catch(() => 'v2')) === 'v1' ? 'docker-compose' : 'docker compose';
  const recreate = `${own.workdir ? `cd ${quoteSh(own.workdir)} && ` : ''}${cli} up -d --force-recreate`;
  const folders = foldersToCompare(d.paths.BASE_DIR, [d.paths.LIBRARY_DIR, d.paths.DATA_DIR, d.paths.BACKUP_DIR], own.mounts);
  const hostPaths = folders.map((f) => hostPathOf(f, own.mounts));
  const view = await readHostView(d.engine, {
    image: d.probeImage,
    user: `${d.rules.uid}:${d.svcGid ?? d.rules.uid}`,
    paths: [...new Set(hostPaths)],
    ...(d.probeLabels ? { labels: d.probeLabels } : {}),
  });
  const checks = folders.map((f, i) => {
    const hp = hostPaths[i] as string;
    const outside = view.ok ? (view.seen.get(hp) ?? null) : null;
    return compareFolder(f, hp, seenHere(f), outside, recreate, view.ok ? undefined : view.message, d.ownContainerId ? 'container' : 'checkout');
  });
  // Kade's compose file mounts BASE_DIR at the same path inside and outside: the compose files Kade
  // writes name host paths, so a BASE_DIR fed from another host folder breaks every app's mounts.
  const baseSource = hostPathOf(d.paths.BASE_DIR, own.mounts);
  if (baseSource !== d.paths.BASE_DIR) {
    checks.unshift({
      id: 'mount:source',
      status: 'error',
      message: `BASE_DIR ${repr(d.paths.BASE_DIR)} in the container is the host's ${repr(baseSource)}, not the same path: the host paths in the apps' compose files do not match what Kade sees`,
      code: 'mount_source',
      params: { path: repr(d.paths.BASE_DIR), source: repr(baseSource) },
      fix: recreate,
    });
  }
  return checks;
}

function account(d: DoctorDeps): DoctorCheckT {
  if (d.processUid === null) return { id: 'account', status: 'ok', message: 'no user ids on this system', code: 'account_no_ids', params: {}, fix: null };
  const uid = d.processUid;
  if (d.svcUid === null)
    return {
      id: 'account',
      status: 'warn',
      message: `SVC_UID is not set; Kade runs as uid ${uid}`,
      code: 'account_unset',
      params: { uid },
      fix: `SVC_UID=${uid}`,
    };
  if (d.svcUid !== uid)
    return {
      id: 'account',
      status: 'error',
      message: `SVC_UID is ${d.svcUid} but Kade runs as uid ${uid}: files Kade writes belong to the wrong account`,
      code: 'account_mismatch',
      params: { svc_uid: d.svcUid, uid },
      fix: `SVC_UID=${uid}`,
    };
  return { id: 'account', status: 'ok', message: `Kade runs as uid ${uid}, as SVC_UID says`, code: 'account_ok', params: { uid }, fix: null };
}

function disk(d: DoctorDeps): DoctorCheckT[] {
  const low = d.lowDiskBytes ?? LOW_DISK_BYTES;
  const seen = new Set<string>();
  const out: DoctorCheckT[] = [];
  for (const key of ['BASE_DIR', 'DATA_DIR'] as const) {
    try {
      const { dir, free } = freeFor(d.paths[key]);
      // One line per file system: DATA_DIR on BASE_DIR's disk says nothing new.
      const dev = String(deviceOf(dir));
      if (seen.has(dev)) continue;
      seen.add(dev);
      const ok = free >= low;
      out.push({
        id: `disk:${key}`,
        status: ok ? 'ok' : 'warn',
        message: `${key} ${repr(d.paths[key])}: ${gib(free)} free${ok ? '' : ` (below ${gib(low)})`}`,
        code: ok ? 'disk_ok' : 'disk_low',
        params: { key, path: repr(d.paths[key]), free: gib(free), ...(ok ? {} : { low: gib(low) }) },
        fix: ok ? null : `df -h ${quoteSh(dir)}  # make room: docker system prune, or remove old backups`,
      });
    } catch (err) {
      out.push({
        id: `disk:${key}`,
        status: 'warn',
        message: `${key} ${repr(d.paths[key])}: free space unknown: ${errorMessage(err)}`,
        code: 'disk_unknown',
        params: { key, path: repr(d.paths[key]), error: errorMessage(err) },
        fix: null,
      });
    }
  }
  return out;
}

function pathChecks(d: DoctorDeps): DoctorCheckT[] {
  const storedPaths = d.storedPaths?.();
  return (['BASE_DIR', 'LIBRARY_DIR', 'DATA_DIR', 'BACKUP_DIR'] as const).map((key) => {
    const inUse = d.paths[key];
    const stored = storedPaths?.[key];
    const c = checkPath(inUse, key, d.rules);
    const id = `paths:${key}`;
    if (!c.ok)
      return {
        id,
        status: 'error' as const,
        message: pathRefusal(key, c, d.rules.uid, []).message,
        code: 'path_unusable' as const,
        params: { key, path: repr(inUse), reason: c.reason ?? 'not_writable', base: c.base },
        fix: c.fix,
      };
    if (stored !== undefined && stored !== inUse)
      return {
        id,
        status: 'warn' as const,
        message: `${key} in use is ${repr(inUse)}, but the settings say ${repr(stored)}, which Kade could not use at its start`,
        code: 'path_not_stored' as const,
        params: { key, path: repr(inUse), stored: repr(stored) },
        fix: checkPath(stored, key, d.rules).fix,
      };
    return { id, status: 'ok' as const, message: `${key} in use: ${repr(inUse)}`, code: 'path_ok' as const, params: { key, path: repr(inUse) }, fix: null };
  });
}

function stacks(d: DoctorDeps): DoctorCheckT {
  const lib = d.paths.LIBRARY_DIR;
  const verdicts = stackVerdicts(lib);
  const apps = verdicts.filter((v) => v.counts).length;
  const odd = verdicts.filter((v) => !v.counts || v.noCompose).length;
  return {
    id: 'stacks',
    status: odd > 0 ? 'warn' : 'ok',
    message: `LIBRARY_DIR ${repr(lib)}: ${apps} ${apps === 1 ? 'app' : 'apps'} among ${verdicts.length} ${verdicts.length === 1 ? 'entry' : 'entries'}${odd > 0 ? `; ${odd} not (fully) an app` : ''}; DATA_DIR ${repr(d.paths.DATA_DIR)}`,
    code: odd > 0 ? 'stacks_odd' : 'stacks',
    params: { library: repr(lib), apps, entries: verdicts.length, ...(odd > 0 ? { odd } : {}), data: repr(d.paths.DATA_DIR) },
    fix: null,
    details: verdicts.map(verdictLine),
    detail_codes: verdicts.map(verdictCode),
  };
}

/** Apps whose files or bind sources drifted from what Kade wrote: compose does not run them until an admin decides. */
function appFiles(refused: { name: string; message: string }[]): DoctorCheckT {
  if (refused.length === 0)
    return {
      id: 'app_files',
      status: 'ok',
      message: "every app's files are the ones Kade wrote and pass the policies",
      code: 'app_files_ok',
      params: {},
      fix: null,
    };
  // A warning: Kade itself works; these apps wait for an admin (the app's page says so too).
  return {
    id: 'app_files',
    status: 'warn',
    message: `${refused.length} ${refused.length === 1 ? 'app is' : 'apps are'} not run by Kade: the files changed outside Kade or break the policies. An admin checks them and accepts them on the app's page (or restores a snapshot)`,
    code: 'app_files_refused',
    params: { count: refused.length },
    fix: null,
    details: refused.map((r) => `${r.name}: ${r.message}`),
    detail_codes: refused.map((r) => ({ code: 'app_refused' as const, params: { name: r.name, reason: r.message } })),
  };
}

function store(d: DoctorDeps): DoctorCheckT {
  try {
    const n = d.storeApps();
    const count = `${n} ${n === 1 ? 'app' : 'apps'} in the store cache`;
    // No command adds a repository: the advice is part of the message.
    if (n > 0) return { id: 'store', status: 'ok', message: count, code: 'store_ok', params: { count: n }, fix: null };
    return {
      id: 'store',
      status: 'warn',
      message: `${count}: add a template repository under Repositories, or sync the ones there`,
      code: 'store_empty',
      params: { count: n },
      fix: null,
    };
  } catch (err) {
    return {
      id: 'store',
      status: 'warn',
      message: `the store cache could not be read: ${errorMessage(err)}`,
      code: 'store_unreadable',
      params: { error: errorMessage(err) },
      fix: null,
    };
  }
}

/** The checks Kade can make from inside: engine, own container, BASE_DIR mounts, account, space, folders, apps, store. */
export function createDoctor(d: DoctorDeps) {
  return {
    /** Every check (or those of `parts`); never throws: a failure is a check. */
    async run(parts: readonly DoctorPart[] = DOCTOR_PARTS): Promise<DoctorReportT> {
      const want = new Set(parts);
      const checks: DoctorCheckT[] = [];
      if (want.has('engine')) checks.push(await engineCheck(d));
      const own = want.has('container') || want.has('mounts') ? await ownContainer(d) : null;
      if (own && want.has('container')) checks.push(own.check);
      if (own && want.has('mounts')) checks.push(...(await mountChecks(d, own)));
      if (want.has('account')) checks.push(account(d));
      if (want.has('disk')) checks.push(...disk(d));
      if (want.has('paths')) checks.push(...pathChecks(d));
      if (want.has('stacks')) checks.push(stacks(d));
      if (want.has('app_files') && d.refusedFiles) checks.push(appFiles(d.refusedFiles()));
      if (want.has('store')) checks.push(store(d));
      return { ok: checks.every((c) => c.status !== 'error'), checks };
    },
  };
}

export type DoctorService = ReturnType<typeof createDoctor>;

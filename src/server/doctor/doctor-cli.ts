/**
 * `node dist/server/doctor/doctor-cli.js [--json] [--only=engine,mounts,…]`: the report of GET /api/doctor
 * without starting a server, for `install.sh --doctor` (run with `docker exec` in Kade's container). It
 * opens the database read-only, so a running Kade is neither locked out nor changed. Exit code 1 when a
 * check is an error.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { indexRepo } from '../catalogue/app-index.ts';
import { createReposRepo } from '../catalogue/repos.repo.ts';
import { loadConfig } from '../config/config.ts';
import { detectOwnContainerId } from '../containers/own-container.ts';
import { errorMessage } from '../core/errors.ts';
import { createEventBus } from '../core/events.ts';
import { createLogger } from '../core/logger.ts';
import { createComposeCli } from '../engine/compose-cli.ts';
import { createDockerEngine } from '../engine/docker-engine.ts';
import { createSettingsModule } from '../settings/settings-module.ts';
import { refusedFilesStandalone } from '../stacks/gate/file-verdicts.ts';
import { createDoctor, DOCTOR_PARTS, type DoctorPart } from './doctor.service.ts';
import { formatReport, serverUid } from './report-text.ts';

function parseArgs(argv: string[]): { json: boolean; parts: DoctorPart[] } {
  let json = false;
  let parts = [...DOCTOR_PARTS];
  for (const a of argv) {
    if (a === '--json') json = true;
    else if (a.startsWith('--only=')) {
      const want = a.slice('--only='.length).split(',').filter(Boolean);
      const bad = want.find((w) => !DOCTOR_PARTS.includes(w as DoctorPart));
      if (bad !== undefined) throw new Error(`unknown part '${bad}'; parts are ${DOCTOR_PARTS.join(', ')}`);
      parts = want as DoctorPart[];
    } else throw new Error(`unknown option '${a}'; use --json and --only=${DOCTOR_PARTS.join(',')}`);
  }
  return { json, parts };
}

async function main(): Promise<number> {
  const { json, parts } = parseArgs(process.argv.slice(2));
  const config = loadConfig();
  const logger = createLogger('silent');
  let db: Database.Database | null = null;
  try {
    db = new Database(join(config.stateDir, 'kade.db'), { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
  } catch {
    // No database yet (Kade never started): the boot configuration's folders, no store.
  }
  const settings = db ? createSettingsModule({ db, events: createEventBus(logger), logger, config }) : null;
  const paths = settings?.pathsInUse() ?? { BASE_DIR: config.baseDir, LIBRARY_DIR: config.libraryDir, DATA_DIR: config.dataDir, BACKUP_DIR: config.backupDir };
  const repos = db ? createReposRepo(db) : null;
  const engine = createDockerEngine(config.engine);
  const compose = createComposeCli(config.engine, config.compose);
  const doctor = createDoctor({
    engine,
    compose,
    paths,
    ...(settings ? { storedPaths: () => settings.storedPaths() } : {}),
    rules: { mountedBase: config.baseDir, engineSocket: 'socketPath' in config.engine ? config.engine.socketPath : undefined, uid: config.uid },
    svcUid: config.uid,
    svcGid: config.gid,
    processUid: serverUid(),
    ownContainerId: detectOwnContainerId(),
    probeImage: config.probeImage,
    // The catalogue's own rule: a repo's apps are those of its cache once it has a commit.
    storeApps: () =>
      (repos?.list() ?? []).reduce((n, r) => n + (r.commit ? indexRepo(r.id, join(config.stateDir, 'cache', r.id, r.subdirectory)).apps.length : 0), 0),
    refusedFiles: () =>
      refusedFilesStandalone({
        libraryDir: paths.LIBRARY_DIR,
        stateDir: config.stateDir,
        binds: {
          dataDir: paths.DATA_DIR,
          libraryDir: paths.LIBRARY_DIR,
          stateDir: config.stateDir,
          backupDir: paths.BACKUP_DIR,
          engineSocket: 'socketPath' in config.engine ? config.engine.socketPath : null,
          allowedHostDirs: () => settings?.allowedHostDirs() ?? [],
        },
        compose,
        allowPrivileged: () => settings?.allowPrivileged() ?? 'admins',
      }),
  });
  try {
    const report = await doctor.run(parts);
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
    return report.ok ? 0 : 1;
  } finally {
    db?.close();
  }
}

main().then(
  // Exit at once: the engine client's kept-alive connections would hold the process open.
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`kade doctor: ${errorMessage(err)}\n`);
    process.exit(2);
  },
);

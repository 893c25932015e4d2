/** The apps as the backup service sees them: folders, compose projects and their databases (dumps.ts). */
import { COMPOSE_SERVICE_LABEL, type Engine } from '../engine/engine.ts';
import type { AppsForBackups } from '../stacks/stacks-core.ts';
import type { BackupStacks, DatabaseTarget } from './backups.service.ts';
import { dumpDatabase, findDatabases, loadDump, waitUntilAnswers, waitUntilDumpable } from './dumps.ts';

/** SPEC Limits: a restored database gets this long to answer twice before its dump is loaded. */
const ANSWER_TIMEOUT_MS = 180_000;
/** A database about to be dumped gets this long to answer once (one just started may still be setting itself up). */
const DUMPABLE_TIMEOUT_MS = 60_000;
/** How often a restored database is asked: its two answers in a row then take a quarter second, not a second. */
const ANSWER_INTERVAL_MS = 250;

/** The backups' view of the apps: the stacks' port (stacks/stacks-core.ts) and each app's databases on the engine. */
export function backupStacks(apps: AppsForBackups, engine: Engine): BackupStacks {
  return {
    locate: (name) => apps.locate(name),
    async databases(name): Promise<DatabaseTarget[]> {
      const sources = apps.databaseSources(name);
      if (!sources) return [];
      const specs = findDatabases(sources.compose, sources.env, sources.meta, sources.template);
      if (specs.length === 0) return [];
      const { project } = sources;
      const running: Record<string, string> = {};
      for (const c of await engine.listContainers({ project })) {
        const service = c.labels[COMPOSE_SERVICE_LABEL];
        if (service && c.state === 'running') running[service] = c.id;
      }
      return specs.map((spec) => {
        const id = running[spec.service] ?? null;
        return {
          service: spec.service,
          kind: spec.kind,
          containerId: id,
          ready: () => waitUntilDumpable(engine, id ?? '', spec, { timeoutMs: DUMPABLE_TIMEOUT_MS }),
          dump: () => dumpDatabase(engine, id ?? '', spec),
          async load(stream) {
            await waitUntilAnswers(engine, id ?? '', spec, { timeoutMs: ANSWER_TIMEOUT_MS, intervalMs: ANSWER_INTERVAL_MS });
            await loadDump(engine, id ?? '', spec, stream);
          },
        };
      });
    },
    up: (p, ctx, actor) => apps.up(p, ctx, actor),
    stop: (p, ctx, actor) => apps.stop(p, ctx, actor),
    down: (p, ctx, actor) => apps.down(p, ctx, actor),
    swap: apps.swap,
    judge: (actor, name, files, confirm) => apps.judge(actor, name, files, confirm),
  };
}

/** The apps as the backup service sees them: folders, compose projects and their databases (dumps.ts). */
import { COMPOSE_SERVICE_LABEL, type Engine } from '../engine/engine.ts';
import { parseEnv } from '../stacks/store/env-file.ts';
import type { StacksService } from '../stacks/stacks.service.ts';
import type { BackupStacks, DatabaseTarget } from './backups.service.ts';
import { dumpDatabase, findDatabases, loadDump, waitUntilAnswers } from './dumps.ts';

/** SPEC Limits: a restored database gets this long to answer twice before its dump is loaded. */
const ANSWER_TIMEOUT_MS = 180_000;

export function backupStacks(stacks: StacksService, engine: Engine): BackupStacks {
  return {
    locate(name) {
      const loc = stacks.store.locate(name);
      return { dir: loc.dir, adopted: loc.adopted, libraryPath: loc.path, project: loc.composeFile ? stacks.store.project(loc) : null };
    },
    async databases(name): Promise<DatabaseTarget[]> {
      const { store } = stacks;
      const loc = store.locate(name);
      if (!loc.composeFile) return [];
      const meta = store.meta(loc);
      const specs = findDatabases(store.composeDoc(loc), parseEnv(store.envText(loc)), meta, loc.adopted ? null : stacks.templateOf(name));
      if (specs.length === 0) return [];
      const project = store.project(loc).name;
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
          dump: () => dumpDatabase(engine, id ?? '', spec),
          async load(stream) {
            await waitUntilAnswers(engine, id ?? '', spec, { timeoutMs: ANSWER_TIMEOUT_MS });
            await loadDump(engine, id ?? '', spec, stream);
          },
        };
      });
    },
    up: (p, ctx, actor) => stacks.upProject(p, ctx, actor),
    stop: (p, ctx, actor) => stacks.stopProject(p, ctx, actor),
    down: (p, ctx, actor) => stacks.downProject(p, ctx, actor),
    swap: stacks.store.swap,
    judge: (actor, name, files, confirm) => stacks.judgeFiles(actor, name, files, confirm),
  };
}

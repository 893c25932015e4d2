import { join } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { createAuditSubscriber } from './audit/audit.repo.ts';
import { createAuthService } from './auth/auth.service.ts';
import { createSessionsRepo } from './auth/sessions.repo.ts';
import { createUsersRepo } from './auth/users.repo.ts';
import { createCatalogueService } from './catalogue/catalogue.service.ts';
import { createGitCli } from './catalogue/git-cli.ts';
import { createReposRepo } from './catalogue/repos.repo.ts';
import { type Config, prepareDirs } from './config/config.ts';
import { createEventBus } from './core/events.ts';
import type { Logger } from './core/logger.ts';
import { openDb } from './db/db.ts';
import { createComposeCli } from './engine/compose-cli.ts';
import { createDockerEngine } from './engine/docker-engine.ts';
import { createHttpApp } from './http/app.ts';
import type { AppEnv } from './http/context.ts';
import { createJobLogStore } from './jobs/job-log.ts';
import { createJobsRepo } from './jobs/jobs.repo.ts';
import { createJobsService } from './jobs/jobs.service.ts';
import { createStacksService } from './stacks/stacks.service.ts';

export interface Kade {
  app: OpenAPIHono<AppEnv>;
  close(): Promise<void>;
}

/** The composition root: config → db → adapters → services → http. */
export function createKade(config: Config, logger: Logger, opts: { peerAddress?: (req: Request, env: unknown) => string | undefined } = {}): Kade {
  prepareDirs(config);
  const clock = () => new Date();
  const db = openDb(join(config.stateDir, 'kade.db'));
  const events = createEventBus(logger);
  createAuditSubscriber(db, events, clock);

  const engine = createDockerEngine(config.engine);
  const compose = createComposeCli(config.engine, config.compose);
  const git = createGitCli();

  const jobs = createJobsService({ repo: createJobsRepo(db), logs: createJobLogStore(config.jobsDir), events, logger, clock });
  const interrupted = jobs.recover();
  if (interrupted > 0) logger.warn({ interrupted }, 'jobs cut off by the last restart marked interrupted');
  const auth = createAuthService({ users: createUsersRepo(db), sessions: createSessionsRepo(db), events, clock });
  const catalogue = createCatalogueService({
    repos: createReposRepo(db),
    git,
    jobs,
    events,
    cacheDir: join(config.stateDir, 'cache'),
    version: config.version,
    clock,
  });
  const stacks = createStacksService({
    libraryDir: config.libraryDir,
    dataDir: config.dataDir,
    uid: config.uid,
    gid: config.gid,
    timezone: () => config.timezone,
    engine,
    compose,
    jobs,
    catalogue,
    events,
    logger,
    clock,
  });
  if (config.autoSyncOnBoot) catalogue.syncAll(null);

  const app = createHttpApp(
    { auth, catalogue, stacks, jobs, engine, compose },
    {
      logger,
      version: config.version,
      webDir: config.webDir,
      prefill: { dataDir: config.dataDir, uid: config.uid, gid: config.gid },
      ...(opts.peerAddress ? { peerAddress: opts.peerAddress } : {}),
    },
  );
  return {
    app,
    async close() {
      await jobs.idle();
      db.close();
    },
  };
}

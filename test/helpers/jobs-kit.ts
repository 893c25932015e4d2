import { join } from 'node:path';
import { createEventBus } from '../../src/server/core/events.ts';
import { createLogger } from '../../src/server/core/logger.ts';
import { openDb } from '../../src/server/db/db.ts';
import { createJobLogStore } from '../../src/server/jobs/job-log.ts';
import { createJobsRepo } from '../../src/server/jobs/jobs.repo.ts';
import { createJobsService } from '../../src/server/jobs/jobs.service.ts';

/**
 * A jobs service on a database (`root/kade.db`) and job logs (`root/jobs`) of its own, with a silent logger and
 * the event bus the jobs report to: what a test of a service that starts jobs builds it on.
 */
export function jobsIn(root: string, clock: () => Date) {
  const logger = createLogger('silent');
  const events = createEventBus(logger);
  const jobs = createJobsService({ repo: createJobsRepo(openDb(join(root, 'kade.db'))), logs: createJobLogStore(join(root, 'jobs')), events, logger, clock });
  return { logger, events, jobs };
}

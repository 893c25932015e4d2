import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { Job, Repo } from '../../../shared/api.ts';
import { Settings, WizardGit, WizardPaths, WizardState } from '../../../shared/settings.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { json, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

const { get, post } = routeGroup('wizard');

const state = get('/api/wizard', 'viewer', { 200: WizardState }).summary('Whether the setup wizard is done (WIZARD_DONE) and how many template repos exist');
const reset = post('/api/wizard/reset', 'admin', { 200: WizardState }).summary('Run the wizard again: clears WIZARD_DONE');
const paths = post('/api/wizard/paths', 'admin', { body: WizardPaths, 200: Settings }).summary(
  'Save BASE_DIR; the other folders follow it unless given. Same checks as PUT /api/settings',
);
const git = post('/api/wizard/git', 'admin', { body: WizardGit, 202: json(z.object({ repo: Repo, job: Job }), 'added; sync job started') }).summary(
  'Add a template repo (name defaults to the last part of the URL); its first sync starts at once',
);
const sync = post('/api/wizard/sync', 'admin', { 202: json(z.object({ jobs: z.array(Job) }), 'sync jobs started') }).summary(
  'Sync every template repo; one job per repo',
);
const complete = post('/api/wizard/complete', 'admin', { 200: WizardState }).summary('Mark the wizard done: sets WIZARD_DONE');

export function wizardRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'wizard'>): void {
  app.openapi(state, (c) => c.json(s.wizard.state(), 200));
  app.openapi(reset, (c) => c.json(s.wizard.reset(actorOf(c)), 200));
  app.openapi(paths, (c) => c.json(s.wizard.paths(actorOf(c), c.req.valid('json')), 200));
  app.openapi(git, (c) => c.json(s.wizard.git(actorOf(c), c.req.valid('json')), 202));
  app.openapi(sync, (c) => c.json({ jobs: s.wizard.sync(actorOf(c)) }, 202));
  app.openapi(complete, (c) => c.json(s.wizard.complete(actorOf(c)), 200));
}

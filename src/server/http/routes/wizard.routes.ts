import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { Job, Repo } from '../../../shared/api.ts';
import { Settings, WizardGit, WizardPaths, WizardState } from '../../../shared/settings.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { defineRoute, json, jsonBody, PROBLEMS } from '../route.ts';
import type { Services } from '../services.ts';

const step = (path: string, summary: string) => ({ method: 'post' as const, path: `/api/wizard/${path}`, tags: ['wizard'], summary });

const state = defineRoute('viewer', {
  method: 'get',
  path: '/api/wizard',
  tags: ['wizard'],
  summary: 'Whether the setup wizard is done (WIZARD_DONE) and how many template repos exist',
  responses: { 200: json(WizardState), ...PROBLEMS },
});
const reset = defineRoute('admin', { ...step('reset', 'Run the wizard again: clears WIZARD_DONE'), responses: { 200: json(WizardState), ...PROBLEMS } });
const paths = defineRoute('admin', {
  ...step('paths', 'Save BASE_DIR; the other folders follow it unless given. Same checks as PUT /api/settings'),
  request: { body: jsonBody(WizardPaths) },
  responses: { 200: json(Settings), ...PROBLEMS },
});
const git = defineRoute('admin', {
  ...step('git', 'Add a template repo (name defaults to the last part of the URL); its first sync starts at once'),
  request: { body: jsonBody(WizardGit) },
  responses: { 202: json(z.object({ repo: Repo, job: Job }), 'added; sync job started'), ...PROBLEMS },
});
const sync = defineRoute('admin', {
  ...step('sync', 'Sync every template repo; one job per repo'),
  responses: { 202: json(z.object({ jobs: z.array(Job) }), 'sync jobs started'), ...PROBLEMS },
});
const complete = defineRoute('admin', { ...step('complete', 'Mark the wizard done: sets WIZARD_DONE'), responses: { 200: json(WizardState), ...PROBLEMS } });

export function wizardRoutes(app: OpenAPIHono<AppEnv>, s: Pick<Services, 'wizard'>): void {
  app.openapi(state, (c) => c.json(s.wizard.state(), 200));
  app.openapi(reset, (c) => c.json(s.wizard.reset(actorOf(c)), 200));
  app.openapi(paths, (c) => c.json(s.wizard.paths(actorOf(c), c.req.valid('json')), 200));
  app.openapi(git, (c) => c.json(s.wizard.git(actorOf(c), c.req.valid('json')), 202));
  app.openapi(sync, (c) => c.json({ jobs: s.wizard.sync(actorOf(c)) }, 202));
  app.openapi(complete, (c) => c.json(s.wizard.complete(actorOf(c)), 200));
}

import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { InstallRequest, Job, JobAccepted, Name, Repo, RepoInput, StoreApp } from '../../../shared/api.ts';
import { CATEGORIES } from '../../../shared/categories.ts';
import { englishText, TemplateFile } from '../../../shared/template.ts';
import { categoriesOf } from '../../catalogue/derive-categories.ts';
import { type AppEnv, actorOf } from '../context.ts';
import { presentAppSchema } from '../presenters/app-schema.ts';
import { json, routeGroup } from '../route.ts';
import type { Services } from '../services.ts';

// Ids and names in the path are safe names: anything else is a 400 naming the rule, before any lookup.
const RepoId = z.object({ id: Name });
const RepoAccepted = z.object({ repo: Repo, job: Job });

const { get, post, put, delete: del } = routeGroup('catalogue');

const listRepos = get('/api/repos', 'viewer', { 200: z.array(Repo) }).summary('Template repos with cache status; tokens never returned');
const getRepo = get('/api/repos/{id}', 'viewer', { params: RepoId, 200: Repo }).summary(
  'One template repo with its cache status and import report (format, apps found and imported, refusals with reasons)',
);
const addRepo = post('/api/repos', 'admin', { body: RepoInput, 202: json(RepoAccepted, 'added; sync job started') }).summary(
  'Add a template repo and start its first sync',
);
const editRepo = put('/api/repos/{id}', 'admin', {
  params: RepoId,
  body: RepoInput.omit({ id: true }).extend({ url: z.string().max(2048).optional() }),
  202: RepoAccepted,
}).summary(
  'Edit a repo (id unchanged; an empty token keeps the stored one while scheme, host and port stay the same, a URL to another server drops it) and fetch it again',
);
const deleteRepo = del('/api/repos/{id}', 'admin', { params: RepoId, 204: { description: 'removed' } }).summary('Remove a repo and its cache');
const syncRepo = post('/api/repos/{id}/sync', 'operator', { params: RepoId, 202: JobAccepted }).summary('Fetch the repo again');
const storeApps = get('/api/store/apps', 'viewer', { 200: z.array(StoreApp) }).summary(
  'Every app of every repo cache, with the powers over the host each gets with its start values and whether only an admin can install it',
);
const AppSchema = z.object({
  repo: z.string(),
  app: z.string(),
  template: TemplateFile,
  values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  data_root: z.string().describe('DATA_DIR: each app owns DATA_DIR/<its name>, the default of its data folder (appdata_dir) and of an empty path field'),
});
const storeApp = get('/api/store/apps/{repo}/{app}', 'viewer', { params: z.object({ repo: Name, app: Name }), 200: AppSchema }).summary(
  "The app's form schema with pre-filled values",
);
const install = post('/api/store/install', 'operator', { body: InstallRequest, 202: JobAccepted }).summary('Install an app from the store as a new stack');

const Category = z.object({ id: z.string(), name: z.object({ nl: z.string(), en: z.string() }), color: z.string(), icon: z.string() });
const categories = get('/api/categories', 'viewer', { 200: z.array(Category) }).summary('The seventeen app categories with names, colours and icons');

export function catalogueRoutes(app: OpenAPIHono<AppEnv>, s: Services, prefill: { dataDir: string; uid: number; gid: number }): void {
  app.openapi(categories, (c) => c.json([...CATEGORIES], 200));
  app.openapi(listRepos, (c) => c.json(s.catalogue.list(), 200));
  app.openapi(getRepo, (c) => c.json(s.catalogue.get(c.req.valid('param').id), 200));
  app.openapi(addRepo, (c) => c.json(s.catalogue.add(actorOf(c), c.req.valid('json')), 202));
  app.openapi(editRepo, (c) => {
    const body = c.req.valid('json');
    return c.json(s.catalogue.edit(actorOf(c), c.req.valid('param').id, { ...body, url: body.url ?? '' }), 202);
  });
  app.openapi(deleteRepo, async (c) => {
    await s.catalogue.remove(actorOf(c), c.req.valid('param').id);
    return c.body(null, 204);
  });
  app.openapi(syncRepo, (c) => c.json({ job: s.catalogue.sync(actorOf(c), c.req.valid('param').id) }, 202));
  app.openapi(storeApps, (c) => {
    const installed = s.stacks.installedBySource();
    const actor = actorOf(c);
    return c.json(
      s.catalogue.apps().map((a) => ({
        repo: a.repo,
        app: a.app,
        name: a.template.name,
        description: englishText(a.template.description),
        description_nl: typeof a.template.description === 'string' ? null : a.template.description.nl,
        version: a.template.version,
        icon: a.template.icon ?? null,
        tags: a.template.tags,
        categories: categoriesOf(a.template.metadata.categories, a.template.tags, englishText(a.template.description)),
        installed: installed.get(`${a.repo}/${a.app}`) ?? [],
        format: a.format,
        powers: a.powers,
        needs_admin: s.stacks.needsAdmin(actor, a.powers),
      })),
      200,
    );
  });
  app.openapi(storeApp, (c) => {
    const { repo, app: name } = c.req.valid('param');
    const loaded = s.catalogue.loadApp(repo, name);
    return c.json(presentAppSchema(repo, name, loaded.template, prefill), 200);
  });
  app.openapi(install, (c) => c.json({ job: s.stacks.install(actorOf(c), c.req.valid('json')) }, 202));
}

// A store update reaches the installed app (issue 26): when the store's version of an app's template is another than
// the one its files were rendered from, the app list says so (`template_update`), for Kade's own templates and for
// imported ones alike (an imported app's version is its store's own: Runtipi's version with its tipi_version, the
// image tag of a CasaOS app); saving the Configure form renders the new template and the notice goes.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { ADMIN, createStacksKit, IMAGES, type StacksKit } from '../../../../test/helpers/stacks-kit.ts';
import type { StackT } from '../../../shared/api.ts';
import { importRuntipi } from '../../catalogue/import/runtipi.ts';

async function kit(t: { after(fn: () => void): void }): Promise<StacksKit> {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  return k;
}

// The app view's answer: the list's entry of the app with its containers (the list itself reads LIBRARY_DIR on the disk).
const listed = (k: StacksKit, name: string): Promise<StackT> => k.stacks.get(name, 'kade.test');
const edit = (path: string, from: string, to: string) => writeFileSync(path, readFileSync(path, 'utf8').replace(from, to));

test("a new version of Kade's own template in the store shows on the installed app until Configure applies it", async (t) => {
  const k = await kit(t);
  assert.equal((await k.install('notes')).state, 'succeeded');
  assert.equal((await listed(k, 'notes')).template_update, null, 'the same version: nothing to apply');
  await k.updateStore((repo) => edit(join(repo, 'apps', 'notes', 'template.json'), '"version": "1.0.0"', '"version": "1.1.0"'));
  assert.equal((await listed(k, 'notes')).template_update, '1.1.0');
  const job = await k.done(k.stacks.reconfigure(ADMIN, 'notes', { values: {} }));
  assert.equal(job.state, 'succeeded', job.error ?? '');
  assert.equal((await listed(k, 'notes')).template_update, null);
});

test('a field the new template gained starts at its default in Configure, and saving the form as it starts writes that default', async (t) => {
  const k = await kit(t);
  assert.equal((await k.install('notes', 'notes', { title: 'Mine' })).state, 'succeeded');
  await k.updateStore((repo) => {
    const path = join(repo, 'apps', 'notes', 'template.json');
    const template = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...template, version: '1.1.0', fields: [...template.fields, { id: 'footer', label: 'Footer', default: 'bye' }] }));
    edit(join(repo, 'apps', 'notes', 'docker-compose.yml'), '      TITLE: "{{title}}"\n', '      TITLE: "{{title}}"\n      FOOTER: "{{footer}}"\n');
  });
  const { values } = k.stacks.config(ADMIN, 'notes');
  assert.equal(values.footer, 'bye', 'the new field starts at its default, as in an install form');
  assert.equal(values.title, 'Mine', 'a stored value stays');
  // The form sends every value it shows.
  assert.equal((await k.done(k.stacks.reconfigure(ADMIN, 'notes', { values }))).state, 'succeeded');
  const compose = parse(k.read(join(k.paths.library, 'notes', 'docker-compose.yml')) ?? '');
  assert.deepEqual([compose.services.web.environment.TITLE, compose.services.web.environment.FOOTER], ['Mine', 'bye']);
  assert.equal((await listed(k, 'notes')).template_update, null);
});

test('a store update of an imported app (a CasaOS app’s new image) reaches it the same way, with the new image after Configure', async (t) => {
  const k = await kit(t);
  k.engine.addImage('kade-test/web:2');
  assert.equal((await k.install('proxy', 'casa-proxy')).state, 'succeeded');
  assert.equal((await listed(k, 'proxy')).template_update, null);
  await k.updateStore((repo) => edit(join(repo, 'apps', 'casa-proxy', 'docker-compose.yml'), IMAGES.web, 'kade-test/web:2'));
  assert.equal((await listed(k, 'proxy')).template_update, '2');
  assert.equal((await k.done(k.stacks.reconfigure(ADMIN, 'proxy', { values: {} }))).state, 'succeeded');
  assert.equal((await listed(k, 'proxy')).template_update, null);
  const compose = parse(k.read(join(k.paths.library, 'proxy', 'docker-compose.yml')) ?? '');
  assert.equal(compose.services.web.image, 'kade-test/web:2');
});

test('a Runtipi app’s version is its version with its tipi_version: a store update of the same version is a new one', () => {
  const dir = join(import.meta.dirname, '../../../../test/fixtures/import/runtipi/apps/echo-tipi');
  assert.equal(importRuntipi(dir, 'echo-tipi').template.version, '1.0.0 (tipi 3)');
});

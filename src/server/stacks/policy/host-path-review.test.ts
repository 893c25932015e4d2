import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bindRulesIn } from '../../../../test/helpers/bind-rules.ts';
import { TemplateFile } from '../../../shared/template.ts';
import type { CatalogueService } from '../../catalogue/catalogue.service.ts';
import type { Actor } from '../../core/events.ts';
import { createHostPathReview } from './host-path-review.ts';

// The install form's live look at host folders (issue #24 items 14 and 18): what the bind policy would refuse for the
// app of the typed name, with the field it was typed in, before anything is installed.
const { root, rules } = bindRulesIn('kade-hostpaths-');
for (const d of [rules.libraryDir, join(rules.libraryDir, 'shop'), join(rules.dataDir, 'shop')]) mkdirSync(d, { recursive: true });

const template = TemplateFile.parse({
  name: 'Files',
  version: '1.0.0',
  fields: [
    { id: 'appdata_dir', label: 'Data folder', type: 'path', required: true },
    { id: 'media', label: 'Media', type: 'path' },
  ],
});
const compose = [
  'services:',
  '  web:',
  '    image: busybox',
  '    volumes:',
  '      - "{{appdata_dir}}:/data"',
  '{{#media}}',
  '      - "{{media}}:/media"',
  '{{/media}}',
  '',
].join('\n');
const catalogue = { loadApp: () => ({ template, compose, repo: { commit: null } }) } as unknown as Pick<CatalogueService, 'loadApp'>;
const review = createHostPathReview({
  catalogue,
  prefill: { dataDir: rules.dataDir, uid: 1000, gid: 1000 },
  timezone: () => 'UTC',
  binds: rules,
  dirOf: (name) => join(rules.libraryDir, name),
});
const admin: Actor = { user: 'admin', role: 'admin', ip: '127.0.0.1' };
const operator: Actor = { user: 'olga', role: 'operator', ip: '127.0.0.1' };
const ask = (actor: Actor, name: string, values: Record<string, string>) => review(actor, { repo: 'r', app: 'files', name, values });

test("the app's own data folder and an allowed host folder pass; the own folder is named", () => {
  const r = ask(admin, 'files', { media: join(root, 'media', 'films') });
  assert.deepEqual(r, { own: join(rules.dataDir, 'files'), refused: [], may_confirm: true });
});

test('a folder outside the allowed places is refused at the field it was typed in; only an admin may confirm it', () => {
  const want = { own: join(rules.dataDir, 'files'), refused: [{ field: 'media', path: '/tmp/x', reason: 'not_allowed', app: null, read_only: false }] };
  assert.deepEqual(ask(admin, 'files', { media: '/tmp/x' }), { ...want, may_confirm: true });
  assert.deepEqual(ask(operator, 'files', { media: '/tmp/x' }), { ...want, may_confirm: false });
});

test("another app's data is its own reason, and the data folder follows the typed name", () => {
  const r = ask(admin, 'files', { appdata_dir: join(rules.dataDir, 'shop', 'db') });
  assert.deepEqual(r.refused, [{ field: 'appdata_dir', path: join(rules.dataDir, 'shop', 'db'), reason: 'other_app', app: 'shop', read_only: false }]);
  assert.deepEqual(ask(admin, 'my-files', {}).refused, [], 'an empty data folder is the new name’s own');
});

test('a name still being typed that is no app name judges as nobody’s: its data folder is not allowed', () => {
  const r = ask(operator, 'Bad Name', { appdata_dir: join(rules.dataDir, 'Bad Name') });
  assert.equal(r.refused.length, 1);
  assert.equal(r.refused[0]?.reason, 'not_allowed');
});

test('a path the template binds read-only only is said to be read-only; the engine socket is a host path to confirm too', () => {
  const own = TemplateFile.parse({ name: 'Dash', version: '1.0.0', fields: [{ id: 'appdata_dir', label: 'Data folder', type: 'path', required: true }] });
  const text = [
    'services:',
    '  web:',
    '    image: busybox',
    '    volumes:',
    '      - "/:/host:ro"',
    '      - "/var/run/docker.sock:/var/run/docker.sock"',
    '      - "/etc/localtime:/etc/localtime:ro"',
    '',
  ].join('\n');
  const dash = createHostPathReview({
    catalogue: { loadApp: () => ({ template: own, compose: text, repo: { commit: null } }) } as unknown as Pick<CatalogueService, 'loadApp'>,
    prefill: { dataDir: rules.dataDir, uid: 1000, gid: 1000 },
    timezone: () => 'UTC',
    binds: rules,
    dirOf: (name) => join(rules.libraryDir, name),
  });
  const r = dash(admin, { repo: 'r', app: 'dash', name: 'dash', values: {} });
  assert.deepEqual(r.refused, [
    { field: null, path: '/', reason: 'not_allowed', app: null, read_only: true },
    { field: null, path: '/var/run/docker.sock', reason: 'not_allowed', app: null, read_only: false },
  ]);
});

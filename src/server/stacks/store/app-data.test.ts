import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { TemplateFile } from '../../../shared/template.ts';
import { appDataOf, appDataValues } from './app-data.ts';

const template = TemplateFile.parse({
  name: 'Media',
  description: 'x',
  version: '1',
  fields: [
    { id: 'appdata_dir', label: 'Data', type: 'path', required: true },
    { id: 'downloads_dir', label: 'Downloads', type: 'path' },
    { id: 'media_dir', label: 'Media', type: 'path', required: true },
    { id: 'cache_dir', label: 'Cache', type: 'path', default: '/srv/cache' },
    { id: 'title', label: 'Title' },
  ],
});
const ctx = { dataDir: '/srv/kade/appdata', name: 'films' };

test('the data folder is DATA_DIR/<name> when absent, empty or the DATA_DIR root; a typed value stays', () => {
  for (const v of [undefined, '', '  ', '/srv/kade/appdata', '/srv/kade/appdata/', '/srv//kade/appdata']) {
    const out = appDataValues(template, v === undefined ? {} : { appdata_dir: v }, ctx);
    assert.equal(out.appdata_dir, '/srv/kade/appdata/films', String(v));
  }
  assert.equal(appDataValues(template, { appdata_dir: '/srv/kade/appdata/films/db' }, ctx).appdata_dir, '/srv/kade/appdata/films/db');
  assert.equal(appDataValues(template, { appdata_dir: '/elsewhere' }, ctx).appdata_dir, '/elsewhere', 'the bind policy judges it, not this');
});

test('other empty path fields get a folder of their own below it; required ones stay empty; defaults and other fields stay', () => {
  const out = appDataValues(template, { title: '' }, ctx);
  assert.equal(out.downloads_dir, '/srv/kade/appdata/films/downloads');
  assert.equal(out.media_dir, undefined, 'a required field is left for the required check');
  assert.equal(out.cache_dir, undefined, 'its default applies later');
  assert.equal(out.title, '');
  assert.equal(appDataValues(template, { media_dir: '/srv/kade/appdata' }, ctx).media_dir, '/srv/kade/appdata/films/media');
  assert.equal(appDataValues(template, { downloads_dir: '' }, ctx).downloads_dir, '/srv/kade/appdata/films/downloads');
});

test('reconfigure keeps what it did not send (keepAbsent)', () => {
  const out = appDataValues(template, { title: 'x' }, { ...ctx, keepAbsent: true });
  assert.deepEqual(out, { title: 'x' });
});

test('remove-data list: its own folder and binds below it, never DATA_DIR, another app, a link out or an external volume', () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'kade-appdata-')));
  const dataDir = join(root, 'appdata');
  mkdirSync(join(dataDir, 'films', 'db'), { recursive: true });
  mkdirSync(join(dataDir, 'shows'), { recursive: true });
  symlinkSync('/etc', join(dataDir, 'films', 'etc'));
  const composeText = `services:
  web:
    image: x
    volumes:
      - "${dataDir}/films/db:/db"
      - "${dataDir}/films/etc/ssl:/ssl"
      - "${dataDir}/shows:/shows"
      - "${dataDir}:/all"
      - "/srv/media:/media"
      - "cache:/cache"
      - "shared:/shared"
volumes:
  cache: {}
  shared: { external: true }
`;
  const a = { name: 'films', dataDir, composeText, env: {}, stackDir: join(root, 'stacks', 'films'), project: 'films' };
  const out = appDataOf(a, ['films_cache', 'shared', 'films_other']);
  assert.deepEqual(out, { folders: [join(dataDir, 'films')], volumes: ['films_cache'] });
  // Without its own folder: nothing of the data folder, not even the binds below where it would be.
  assert.deepEqual(appDataOf({ ...a, name: 'music' }, []).folders, []);
});

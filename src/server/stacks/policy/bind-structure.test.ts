import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { BindRules } from '../../settings/bind-rules.ts';
import { hostSources } from '../../templates/compose-sources.ts';
import { enforceNoLinks, enforceStructure, linkOnTheWay } from './bind-structure.ts';

const root = mkdtempSync(join(tmpdir(), 'kade-structure-'));
after(() => rmSync(root, { recursive: true, force: true }));
const rules: BindRules = {
  dataDir: join(root, 'appdata'),
  libraryDir: join(root, 'stacks'),
  stateDir: join(root, 'state'),
  backupDir: join(root, 'backups'),
  engineSocket: null,
  allowedHostDirs: () => [],
};
const stackDir = join(rules.libraryDir, 'app');
const scope = { app: 'app', stackDir, files: [join(stackDir, 'docker-compose.yml'), join(stackDir, '.env')] };
const own = join(rules.dataDir, 'app');

const judge = (volumes: string[], approved: string[] = []) => {
  const text = `services:\n  s:\n    image: x\n    volumes: ${JSON.stringify(volumes)}\n`;
  try {
    const sources = hostSources(text, {});
    enforceNoLinks(sources, scope, rules);
    enforceStructure(sources, scope, new Set(approved));
    return 'ok';
  } catch (err) {
    return String((err as { params: { reason: string } }).params.reason);
  }
};

test("binds of the app's own folder, its compose file or .env, or a folder holding them, are refused", () => {
  assert.equal(judge(['./:/stack']), 'own_files');
  assert.equal(judge(['.:/stack:ro']), 'own_files');
  assert.equal(judge(['./docker-compose.yml:/c.yml:ro']), 'own_files');
  assert.equal(judge(['./.env:/e']), 'own_files');
  assert.equal(judge([`${rules.libraryDir}:/all`]), 'own_files');
  assert.equal(judge(['/:/host']), 'own_files');
  // A folder inside the app's folder holds none of them.
  assert.equal(judge(['./data:/data']), 'ok');
  // Only an admin-confirmed read-only path may read them (the engine socket, `/` read-only).
  assert.equal(judge(['/:/host:ro'], ['/']), 'ok');
  assert.equal(judge(['/:/host'], ['/']), 'own_files');
});

test('a writable bind holding another bind source is refused; read-only parents and siblings are fine', () => {
  assert.equal(judge([`${own}/x:/data`, `${own}/x/sub:/sub`]), 'nested_bind');
  assert.equal(judge([`${own}/x/sub:/sub`, `${own}/x:/data`]), 'nested_bind');
  assert.equal(judge([`${own}/x:/data:ro`, `${own}/x/sub:/sub`]), 'ok');
  assert.equal(judge([`${own}/config:/config`, `${own}/cache:/cache`]), 'ok');
  // The same folder twice is no nesting.
  assert.equal(judge([`${own}/x:/a`, `${own}/x:/b`]), 'ok');
});

test('a bind source that is a link, or passes through one below its allowed folder, is refused', () => {
  mkdirSync(join(own, 'real'), { recursive: true });
  symlinkSync('/', join(own, 'root'));
  symlinkSync(join(own, 'real'), join(own, 'hop'));
  assert.equal(judge([`${own}/root:/r`]), 'link');
  assert.equal(judge([`${own}/hop/deeper:/d`]), 'link');
  assert.equal(judge([`${own}/real:/r`, `${own}/not-there-yet/x:/n`]), 'ok');
  assert.equal(linkOnTheWay(`${own}/hop/deeper`, [own]), `${own}/hop`);
  assert.equal(linkOnTheWay(`${own}/real`, [own]), null);
});

test('include and extends.file are refused: they read in services no policy sees', () => {
  const run = (text: string) => () => enforceStructure(hostSources(text, {}), scope);
  assert.throws(run('include: ["./more.yml"]\nservices:\n  s:\n    image: x\n'), /include and extends.file are not allowed/);
  assert.throws(run('services:\n  s:\n    extends: { file: ./base.yml, service: b }\n'), /include and extends.file are not allowed/);
});

test('a short-syntax source with a leading space is the bind it is', () => {
  const [s] = hostSources('services:\n  s:\n    image: x\n    volumes: [" /etc:/data:ro"]\n', {});
  assert.deepEqual(s && { path: s.path, kind: s.kind, readOnly: s.readOnly }, { path: '/etc', kind: 'bind', readOnly: true });
});

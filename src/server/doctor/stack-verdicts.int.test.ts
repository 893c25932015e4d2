import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { stackNames } from '../stacks/read/listing.ts';
import { stackVerdicts, verdictLine } from './stack-verdicts.ts';

const root = mkdtempSync(join(tmpdir(), 'kade-verdicts-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('each entry under LIBRARY_DIR gets the verdict of the apps list, and a reason when it is not an app', () => {
  const lib = join(root, 'stacks');
  const outside = join(root, 'own-folder');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'compose.yaml'), 'services: {}\n');
  for (const d of ['web', 'no-compose', '.hidden', 'Upper', 'trailing ']) mkdirSync(join(lib, d), { recursive: true });
  writeFileSync(join(lib, 'web', 'docker-compose.yml'), 'services: {}\n');
  writeFileSync(join(lib, 'notes'), 'a file\n');
  symlinkSync(outside, join(lib, 'adopted'));
  symlinkSync(join(root, 'gone'), join(lib, 'dangling'));
  symlinkSync(join(lib, 'notes'), join(lib, 'to-file'));

  const verdicts = stackVerdicts(lib);
  const by = new Map(verdicts.map((v) => [v.name, v]));
  // Exactly the entries the apps list shows count.
  assert.deepEqual(
    verdicts.filter((v) => v.counts).map((v) => v.name),
    stackNames(lib),
  );
  assert.deepEqual(stackNames(lib), ['adopted', 'no-compose', 'web']);
  assert.equal(by.get('web')?.noCompose, false);
  assert.equal(by.get('no-compose')?.noCompose, true);
  assert.equal(by.get('adopted')?.link, true);
  assert.equal(by.get('.hidden')?.reason, 'hidden');
  assert.equal(by.get('Upper')?.reason, 'invalid_name');
  assert.equal(by.get('trailing ')?.reason, 'invalid_name');
  assert.equal(by.get('dangling')?.reason, 'broken_link');
  assert.equal(by.get('notes')?.reason, 'not_a_folder');
  assert.equal(by.get('to-file')?.reason, 'not_a_folder');

  const lines = verdicts.map(verdictLine);
  assert.ok(lines.includes('"trailing ": not an app: not a valid app name (lower-case letters, digits, _ and -, at most 63, starting with a letter or digit)'));
  assert.ok(lines.includes('"no-compose": an app (folder), but without a compose file'));
  assert.ok(lines.includes('"adopted": an app (adopted, a link to its folder)'));
  assert.ok(lines.includes('"dangling": not an app: a link whose target does not exist'));
  assert.ok(lines.includes('"to-file": not an app: a link to something that is not a folder'));
});

test('a LIBRARY_DIR that does not exist has no entries', () => {
  assert.deepEqual(stackVerdicts(join(root, 'nowhere')), []);
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { isAppError } from '../core/errors.ts';
import { extractArchive, writeArchive } from './archive.ts';
import { checkStaged, judgeArchive, MAX_JUDGED_BYTES } from './restore-judge.ts';

// The judgment's read of real archives: the compose file and `.env` come out of `stack/` without extracting, a link
// or an oversized file in their place is refused, and the staged files must be the bytes judged.
const root = mkdtempSync(join(tmpdir(), 'kade-judge-'));
after(() => rmSync(root, { recursive: true, force: true }));
const admin = { user: 'admin', role: 'admin' as const, ip: '' };
let n = 0;

async function archiveOf(files: Record<string, string | { link: string }>): Promise<string> {
  const stack = join(root, `stack-${++n}`);
  const data = join(root, `data-${n}`);
  mkdirSync(stack);
  mkdirSync(data);
  writeFileSync(join(data, 'big.bin'), 'x'.repeat(1000));
  for (const [name, v] of Object.entries(files)) {
    if (typeof v === 'string') writeFileSync(join(stack, name), v);
    else symlinkSync(v.link, join(stack, name));
  }
  const dest = join(root, `a-${n}.tar.gz`);
  await writeArchive({ dest, branches: { stack, appdata: data }, meta: {} });
  return dest;
}

function recorder() {
  const seen: { compose: string; env: string }[] = [];
  return { seen, judge: (_a: unknown, _n: string, files: { compose: string; env: string }) => void seen.push(files) };
}

const code = (e: unknown) => (isAppError(e) ? e.code : String(e));

test('the compose file compose would pick and .env are judged, read from the archive', async () => {
  const a = await archiveOf({ 'compose.yaml': 'services: {b: {}}\n', 'docker-compose.yml': 'services: {a: {}}\n', '.env': 'A=1\n' });
  const r = recorder();
  const judged = await judgeArchive(admin, a, 'app', undefined, r);
  assert.deepEqual(r.seen, [{ compose: 'services: {a: {}}\n', env: 'A=1\n' }]);
  assert.equal(judged.compose.name, 'docker-compose.yml');
  const target = join(root, 'x1');
  await extractArchive(a, target);
  checkStaged(join(target, 'stack'), judged);
  writeFileSync(join(target, 'stack', '.env'), 'A=2\n');
  assert.throws(
    () => checkStaged(join(target, 'stack'), judged),
    (e) => code(e) === 'conflict',
  );
});

test('a refusal of the judge is the answer', async () => {
  const a = await archiveOf({ 'docker-compose.yml': 'services: {a: {}}\n' });
  const judge = () => {
    throw new Error('refused');
  };
  await assert.rejects(judgeArchive(admin, a, 'app', undefined, { judge }), /refused/);
});

test('no compose file, a compose file that is a link or one too large to read is refused before anything', async () => {
  const r = recorder();
  await assert.rejects(judgeArchive(admin, await archiveOf({ '.env': 'A=1\n' }), 'app', undefined, r), (e) => code(e) === 'conflict');
  const link = await archiveOf({ 'other.yml': 'services: {a: {}}\n', 'docker-compose.yml': { link: 'other.yml' } });
  await assert.rejects(judgeArchive(admin, link, 'app', undefined, r), (e) => code(e) === 'archive_refused');
  const big = await archiveOf({ 'docker-compose.yml': `# ${'x'.repeat(MAX_JUDGED_BYTES)}\nservices: {a: {}}\n` });
  await assert.rejects(judgeArchive(admin, big, 'app', undefined, r), (e) => code(e) === 'archive_refused');
  assert.deepEqual(r.seen, []);
});

test('a compose file that appears beside the judged one after extraction is a changed archive', async () => {
  const a = await archiveOf({ 'compose.yaml': 'services: {a: {}}\n' });
  const judged = await judgeArchive(admin, a, 'app', undefined, recorder());
  const target = join(root, 'x2');
  await extractArchive(a, target);
  writeFileSync(join(target, 'stack', 'docker-compose.yml'), 'services: {evil: {}}\n');
  assert.throws(
    () => checkStaged(join(target, 'stack'), judged),
    (e) => code(e) === 'conflict',
  );
});

test('a zstd archive with a large data branch is judged at once: the read stops after stack/ and does not hang', async () => {
  const stack = join(root, `stack-${++n}`);
  const data = join(root, `data-${n}`);
  mkdirSync(stack);
  mkdirSync(data);
  writeFileSync(join(stack, 'docker-compose.yml'), 'services: {a: {}}\n');
  // More than the pipes and the parser buffer: the reader stops while zstd still writes.
  writeFileSync(join(data, 'big.bin'), randomBytes(24 * 1024 * 1024));
  const dest = join(root, `a-${n}.tar.zst`);
  await writeArchive({ dest, branches: { stack, appdata: data }, meta: {}, compression: 'zstd' });
  const r = recorder();
  const judged = await Promise.race([
    judgeArchive(admin, dest, 'app', undefined, r),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the read of stack/ did not end within 20 s')), 20_000).unref()),
  ]);
  assert.equal(judged.compose.name, 'docker-compose.yml');
  assert.deepEqual(r.seen, [{ compose: 'services: {a: {}}\n', env: '' }]);
});

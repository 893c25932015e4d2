import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ADMIN, createStacksKit, OPERATOR, type StacksKit } from '../../../../test/helpers/stacks-kit.ts';
import type { Actor } from '../../core/events.ts';
import { composeInvalid } from '../../engine/compose-errors.ts';
import { ENV_MASK } from '../store/env-file.ts';

// The `.env` and compose editors and the snapshot restore as an operator, over the fakes (test/helpers/stacks-kit.ts):
// the same policies and gate as every other write, and the app's secrets never readable by them.

const VIEWER: Actor = { user: 'vera', role: 'viewer', ip: '127.0.0.1' };

async function board(t: { after(fn: () => void): void }): Promise<StacksKit> {
  const k = await createStacksKit();
  t.after(() => k.dispose());
  const job = await k.install('board', 'board');
  assert.equal(job.state, 'succeeded', job.error ?? '');
  return k;
}

const envFile = (k: StacksKit) => k.read(join(k.paths.library, 'board', '.env')) ?? '';
const composeFile = (k: StacksKit) => k.read(join(k.paths.library, 'board', 'docker-compose.yml')) ?? '';
const refusal = (code: string, match?: RegExp) => (err: unknown) => {
  const e = err as { code?: string; message?: string };
  assert.equal(e.code, code, e.message);
  if (match) assert.match(e.message ?? '', match);
  return true;
};

test('an operator reads .env with the secret masked, cannot reveal it, and saving the masked line keeps the stored secret', async (t) => {
  const k = await board(t);
  const stored = k.env('board').DB_PASSWORD ?? '';
  const read = k.stacks.readEnv(OPERATOR, 'board');
  assert.equal(read.content, `DB_PASSWORD=${ENV_MASK}\n`);
  assert.deepEqual(read.masked, ['DB_PASSWORD']);
  assert.throws(() => k.stacks.readEnv(OPERATOR, 'board', true), refusal('forbidden'));
  assert.throws(() => k.stacks.readEnv(VIEWER, 'board'), refusal('forbidden'));

  const saved = k.stacks.writeEnv(OPERATOR, 'board', `${read.content}GREETING=hello\n`);
  assert.equal(saved.content, `DB_PASSWORD=${ENV_MASK}\nGREETING=hello\n`, 'the answer is masked too');
  assert.equal(k.env('board').DB_PASSWORD, stored, 'the stored secret is kept');
  assert.equal(k.env('board').GREETING, 'hello');
  assert.ok(!envFile(k).includes(ENV_MASK), 'the mask never reaches the file');
  assert.ok(k.stacks.snapshots(OPERATOR, 'board').some((s) => s.id === saved.snapshot && s.reason === 'env_edit'));
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'board'), { ok: true, refusal: null }, 'sealed: compose runs the saved files');
});

test('a secret an operator adds stays masked from then on: a secret name, a URL password, a key marked # secret, even once the mark is gone', async (t) => {
  const k = await board(t);
  const base = k.stacks.readEnv(OPERATOR, 'board').content;
  const added = 'SMTP_PASSWORD=abc123xyz\nBACKUP_URL=s3://backup:topsecret9@minio/x\n# secret\nWEBHOOK=https://hooks.example/T0/B0/zzz\nTITLE=Hello\n';
  k.stacks.writeEnv(OPERATOR, 'board', `${base}${added}`);
  const after = k.stacks.readEnv(OPERATOR, 'board');
  assert.deepEqual(after.masked.sort(), ['BACKUP_URL', 'DB_PASSWORD', 'SMTP_PASSWORD', 'WEBHOOK']);
  for (const secret of ['abc123xyz', 'topsecret9', 'hooks.example']) assert.ok(!after.content.includes(secret), `${secret} is not shown`);
  assert.match(after.content, /^TITLE=Hello$/m);

  // The mark removed (or the other secret changed): what was masked for the operator stays masked.
  k.stacks.writeEnv(OPERATOR, 'board', after.content.replace('# secret\n', ''));
  assert.equal(k.env('board').WEBHOOK, 'https://hooks.example/T0/B0/zzz', 'the masked value was kept');
  const again = k.stacks.readEnv(OPERATOR, 'board');
  assert.ok(again.masked.includes('WEBHOOK'), again.content);
  assert.ok(!again.content.includes('hooks.example'));
  assert.ok(!k.stacks.readEnv(ADMIN, 'board').content.includes('hooks.example'), 'an admin sees it masked until they reveal it');
  assert.match(k.stacks.readEnv(ADMIN, 'board', true).content, /hooks\.example/);
});

test("an operator's .env is refused a COMPOSE_ or DOCKER_ key, and a refusal never quotes a secret", async (t) => {
  const k = await board(t);
  const base = k.stacks.readEnv(OPERATOR, 'board').content;
  for (const line of ['COMPOSE_PROJECT_NAME=other', 'DOCKER_HOST=tcp://evil:2375'])
    assert.throws(() => k.stacks.writeEnv(OPERATOR, 'board', `${base}${line}\n`), refusal('compose_refused', /COMPOSE_ or DOCKER_/));
  // A compose file (an admin's) that binds a folder named by a variable: the operator moves it outside the app.
  const compose = composeFile(k).replace('      TZ: UTC\n  db:', '      TZ: UTC\n    volumes:\n      - ${MEDIA:-./media}:/media\n  db:');
  await k.stacks.writeCompose(ADMIN, 'board', compose);
  const stored = k.env('board').DB_PASSWORD ?? '';
  assert.throws(
    () => k.stacks.writeEnv(OPERATOR, 'board', `${base}MEDIA=/srv/${stored}\n`, [`/srv/${stored}`]),
    (err: unknown) => {
      const e = err as { code: string; message: string; params: Record<string, unknown> };
      assert.equal(e.code, 'forbidden_path', e.message);
      assert.ok(!e.message.includes(stored) && !JSON.stringify(e.params).includes(stored), e.message);
      return true;
    },
    'an operator cannot confirm an outside path, and the secret in it is masked in the refusal',
  );
  assert.equal(k.env('board').MEDIA, undefined, 'nothing was written');
});

test("an operator's compose edit passes the bind and compose policies as an operator: an outside path is refused even confirmed", async (t) => {
  const k = await board(t);
  const text = k.stacks.readCompose(OPERATOR, 'board').content;
  const outside = text.replace('      TZ: UTC\n  db:', '      TZ: UTC\n    volumes:\n      - /etc:/host-etc\n  db:');
  await assert.rejects(k.stacks.writeCompose(OPERATOR, 'board', outside, ['/etc']), refusal('forbidden_path'));
  const privileged = text.replace('  db:\n', '  db:\n    privileged: true\n');
  await assert.rejects(k.stacks.writeCompose(OPERATOR, 'board', privileged), refusal('app_powers_refused'));
  assert.equal(composeFile(k), text, 'the file is unchanged');

  const saved = await k.stacks.writeCompose(OPERATOR, 'board', text.replace('TITLE: Board', 'TITLE: Our board'));
  assert.match(composeFile(k), /TITLE: Our board/);
  assert.ok(k.stacks.snapshots(OPERATOR, 'board').some((s) => s.id === saved.snapshot && s.reason === 'compose_edit'));
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'board'), { ok: true, refusal: null });
});

test('a compose file holding secrets inline shows them masked to operators and viewers; a save keeps them, a moved mask is refused', async (t) => {
  const k = await board(t);
  const inline = composeFile(k).replace('${DB_PASSWORD}@db', 'inline-pw-42@db').replace('POSTGRES_PASSWORD: ${DB_PASSWORD}', 'POSTGRES_PASSWORD: inline-pw-42');
  await k.stacks.writeCompose(ADMIN, 'board', inline);
  assert.equal(k.stacks.readCompose(ADMIN, 'board').content, inline, 'an admin reads it as it is');
  for (const who of [OPERATOR, VIEWER]) {
    const seen = k.stacks.readCompose(who, 'board').content;
    assert.ok(!seen.includes('inline-pw-42'), seen);
    assert.match(seen, new RegExp(`POSTGRES_PASSWORD: ${ENV_MASK}`));
    assert.match(seen, new RegExp(`postgres://board:${ENV_MASK}@db`));
  }
  const seen = k.stacks.readCompose(OPERATOR, 'board').content;
  const saved = await k.stacks.writeCompose(OPERATOR, 'board', seen.replace('TITLE: Board', 'TITLE: Kept'));
  assert.ok(!saved.content.includes('inline-pw-42'));
  assert.equal(composeFile(k), inline.replace('TITLE: Board', 'TITLE: Kept'), 'every masked value keeps its stored text');

  const moved = seen.replace('TITLE: Board', `TITLE: ${ENV_MASK}`);
  await assert.rejects(k.stacks.writeCompose(OPERATOR, 'board', moved), refusal('validation', /line \d+ .*masked value/));
});

test('an operator restores a snapshot: the files come back, judged and sealed as theirs, and the restore is a snapshot too', async (t) => {
  const k = await board(t);
  const before = envFile(k);
  const base = k.stacks.readEnv(OPERATOR, 'board').content;
  const saved = k.stacks.writeEnv(OPERATOR, 'board', `${base}GREETING=hello\n`);
  const restored = k.stacks.restoreSnapshot(OPERATOR, 'board', saved.snapshot);
  assert.equal(restored.restored, saved.snapshot);
  assert.equal(envFile(k), before);
  assert.ok(k.stacks.snapshots(OPERATOR, 'board').some((s) => s.id === restored.snapshot && s.reason === 'restore'));
  assert.deepEqual(k.stacks.filesVerdict(ADMIN, 'board'), { ok: true, refusal: null });
  assert.throws(() => k.stacks.restoreSnapshot(VIEWER, 'board', saved.snapshot), refusal('forbidden'));
});

test("a refusal of an operator's compose save never quotes a secret the compose file holds inline", async (t) => {
  const k = await board(t);
  const inline = composeFile(k).replace('POSTGRES_PASSWORD: ${DB_PASSWORD}', 'POSTGRES_PASSWORD: inline-pw-42');
  await k.stacks.writeCompose(ADMIN, 'board', inline);
  // compose quotes the file's values in its complaints (the fake says what the CLI could).
  k.compose.failOn('validate', { error: composeInvalid('board', 'services.db.environment.POSTGRES_PASSWORD: "inline-pw-42" is refused') });
  const seen = k.stacks.readCompose(OPERATOR, 'board').content;
  await assert.rejects(k.stacks.writeCompose(OPERATOR, 'board', seen.replace('TITLE: Board', 'TITLE: Other')), (err: unknown) => {
    const e = err as { code: string; message: string; params: Record<string, unknown> };
    assert.equal(e.code, 'compose_invalid', e.message);
    assert.ok(!e.message.includes('inline-pw-42') && !JSON.stringify(e.params).includes('inline-pw-42'), e.message);
    return true;
  });
  assert.equal(composeFile(k), inline, 'nothing was written');
});

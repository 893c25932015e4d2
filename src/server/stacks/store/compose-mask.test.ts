import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { composeSecrets, maskCompose, unmaskCompose } from './compose-mask.ts';
import { ENV_MASK, type EnvSecrets } from './env-file.ts';

const NONE: EnvSecrets = { keys: new Set(), values: [] };
const ENV: EnvSecrets = { keys: new Set(['DB_PASSWORD']), values: ['env-secret-77'] };

const compose = (...lines: string[]) => `${lines.join('\n')}\n`;
const hides = (shown: string, secrets: string[]) => {
  for (const s of secrets) assert.ok(!shown.includes(s), `${s} is hidden:\n${shown}`);
};

test('a number or a boolean under a secret-looking key is masked, and an unchanged save puts the same scalar back', () => {
  const text = compose(
    'services:',
    '  db:',
    '    image: mysql',
    '    environment:',
    '      MYSQL_ROOT_PASSWORD: 12345678',
    '      PORT: 3306',
    'x-flags:',
    '  SECRET_FLAG: true',
  );
  const shown = maskCompose(text, NONE);
  hides(shown, ['12345678', 'true']);
  assert.match(shown, new RegExp(`MYSQL_ROOT_PASSWORD: ${ENV_MASK}\n`));
  assert.match(shown, /PORT: 3306\n/, 'a number under another key is shown');
  const saved = unmaskCompose(shown, text, NONE);
  assert.equal(saved, text);
  const doc = parse(saved) as { services: { db: { environment: Record<string, unknown> } }; 'x-flags': Record<string, unknown> };
  assert.equal(doc.services.db.environment.MYSQL_ROOT_PASSWORD, 12345678, 'still a number');
  assert.equal(doc['x-flags'].SECRET_FLAG, true, 'still a boolean');
  assert.deepEqual(composeSecrets(text), ['12345678'], 'the number is a secret value; a boolean is no value to look for');
});

test('a known secret inside a comment is masked, and the comment comes back unchanged on save; a mask typed into a new comment is refused', () => {
  const text = compose(
    '# root password is hunter2hunter2, the .env one env-secret-77',
    'services:',
    '  db:',
    '    image: postgres # was postgres://app:urlpass99@old/app',
    '    environment:',
    '      POSTGRES_PASSWORD: hunter2hunter2',
  );
  const shown = maskCompose(text, ENV);
  hides(shown, ['hunter2hunter2', 'env-secret-77', 'urlpass99']);
  assert.match(shown, new RegExp(`^# root password is ${ENV_MASK}, the .env one ${ENV_MASK}$`, 'm'));
  assert.equal(unmaskCompose(shown, text, ENV), text);
  assert.equal(unmaskCompose(shown.replace('image: postgres', 'image: postgres:16'), text, ENV), text.replace('image: postgres', 'image: postgres:16'));
  const typed = shown.replace('services:', `# copied ${ENV_MASK}\nservices:`);
  assert.throws(
    () => unmaskCompose(typed, text, ENV),
    (e: Error) => /line 2 .*masked value/.test(e.message),
  );
});

test('a secret-looking key outside environment is masked wherever it stands: build args, x- extension fields, anchors', () => {
  const text = compose(
    'x-env: &env {DB_PASSWORD: anchored-pw-1, TZ: UTC}',
    'x-db:',
    '  admin_secret: extension-secret-2',
    'services:',
    '  web:',
    '    build:',
    '      context: .',
    '      args:',
    '        NPM_TOKEN: npm-token-3',
    '    environment:',
    '      <<: *env',
    '    labels:',
    '      - GITHUB_TOKEN=listed-token-4',
    '  api:',
    '    build:',
    '      context: .',
    '      args:',
    '        - PIP_TOKEN=listed-token-5',
    '        - DB_PASSWORD',
  );
  const shown = maskCompose(text, NONE);
  hides(shown, ['anchored-pw-1', 'extension-secret-2', 'npm-token-3', 'listed-token-4', 'listed-token-5']);
  assert.match(shown, /TZ: UTC/);
  assert.match(shown, new RegExp(`- PIP_TOKEN=${ENV_MASK}\n`));
  assert.match(shown, /- DB_PASSWORD\n/, 'a name passed through without a value is no secret');
  assert.equal(unmaskCompose(shown, text, NONE), text);
});

test('list items that look alike once masked each keep their own value on save', () => {
  const text = compose(
    'services:',
    '  app:',
    '    image: app',
    '    command: ["--a=postgres://u:pw1111@h", "--a=postgres://u:pw2222@h"]',
    '    entrypoint:',
    '      - --b=postgres://u:pw3333@h',
    '      - --b=postgres://u:pw4444@h',
  );
  const shown = maskCompose(text, NONE);
  hides(shown, ['pw1111', 'pw2222', 'pw3333', 'pw4444']);
  assert.equal(unmaskCompose(shown, text, NONE), text, 'an unchanged save is the stored file byte for byte');
  const edited = shown.replace('image: app', 'image: app:2');
  assert.equal(unmaskCompose(edited, text, NONE), text.replace('image: app', 'image: app:2'), 'an edit elsewhere keeps each value in its place');
});

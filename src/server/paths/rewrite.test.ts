import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseEnv } from '../stacks/store/env-file.ts';
import { movedPath, rewriteCompose, rewriteEnv, rewriteMeta } from './rewrite.ts';

const moves = [
  { from: '/srv/kade/appdata', to: '/mnt/big/appdata' },
  { from: '/srv/kade/stacks', to: '/mnt/big/stacks' },
];

test('movedPath: only whole path components below a moved folder, the deepest folder wins', () => {
  assert.equal(movedPath('/srv/kade/appdata', moves), '/mnt/big/appdata');
  assert.equal(movedPath('/srv/kade/appdata/board/db', moves), '/mnt/big/appdata/board/db');
  assert.equal(movedPath('/srv/kade/appdata:/data:ro', moves), '/mnt/big/appdata:/data:ro');
  assert.equal(movedPath('/srv/kade/appdata-old/x', moves), null, 'a sibling with the same prefix is not below the folder');
  assert.equal(movedPath('/srv/kade', moves), null);
  assert.equal(movedPath('relative/srv/kade/appdata', moves), null);
  assert.equal(movedPath('/srv/kade/appdata/x', [...moves, { from: '/srv/kade/appdata/x', to: '/elsewhere' }]), '/elsewhere');
});

test('rewriteCompose: host sides, long syntax, list and map environments; container sides and comments stay', () => {
  const text = `# my app
services:
  web:
    image: "kade-test/busybox:1"
    volumes:
      - /srv/kade/appdata/board/files:/srv/kade/appdata   # the container side keeps its path
      - "/srv/kade/appdata/board/conf:/conf:ro"
      - type: bind
        source: /srv/kade/appdata/board/cache
        target: /cache
      - ./local:/local
    environment:
      - DATA_PATH=/srv/kade/appdata/board/files
      - OTHER=/srv/kade/appdata-old
    labels:
      where: '/srv/kade/stacks/board'
`;
  const out = rewriteCompose(text, moves);
  assert.equal(
    out,
    `# my app
services:
  web:
    image: "kade-test/busybox:1"
    volumes:
      - /mnt/big/appdata/board/files:/srv/kade/appdata # the container side keeps its path
      - "/mnt/big/appdata/board/conf:/conf:ro"
      - type: bind
        source: /mnt/big/appdata/board/cache
        target: /cache
      - ./local:/local
    environment:
      - DATA_PATH=/mnt/big/appdata/board/files
      - OTHER=/srv/kade/appdata-old
    labels:
      where: '/mnt/big/stacks/board'
`,
  );
  const untouched = 'services:\n  a:   {image: x, volumes: ["/data:/data"]}\n';
  assert.equal(rewriteCompose(untouched, moves), untouched, 'a file with nothing to move is returned byte for byte');
});

test('rewriteEnv: moved values rewritten with the escaping of .env, other lines byte for byte', () => {
  const text = '# comment\nAPPDATA_DIR="/srv/kade/appdata/board"\nPASSWORD="a$b\\"c"\nRAW=/srv/kade/appdata/board/x\nPLAIN=hello\n';
  const out = rewriteEnv(text, moves, 'v1');
  assert.deepEqual({ ...parseEnv(out) }, { ...parseEnv(text), APPDATA_DIR: '/mnt/big/appdata/board', RAW: '/mnt/big/appdata/board/x' });
  assert.ok(out.startsWith('# comment\n'));
  assert.ok(out.includes('PASSWORD="a$b\\"c"\n'), 'an unchanged line is kept byte for byte');
  assert.ok(out.endsWith('PLAIN=hello\n'));
});

test('rewriteMeta: form values and volume hosts below the moved folders', () => {
  const meta = {
    values: { appdata_dir: '/srv/kade/appdata/board', name: 'board', port: 8080 },
    services: { web: { volumes: [{ host: '/srv/kade/appdata/board/x', container: '/srv/kade/appdata', read_only: false }] } },
  };
  const out = JSON.parse(rewriteMeta(JSON.stringify(meta), moves));
  assert.equal(out.values.appdata_dir, '/mnt/big/appdata/board');
  assert.equal(out.values.port, 8080);
  assert.equal(out.services.web.volumes[0].host, '/mnt/big/appdata/board/x');
  assert.equal(out.services.web.volumes[0].container, '/srv/kade/appdata', 'what a path is inside the container stays');
  const same = JSON.stringify({ values: { x: '/elsewhere' } });
  assert.equal(rewriteMeta(same, moves), same);
});

test('a new folder with $ is written into compose as the literal $$, never a variable', () => {
  const out = rewriteCompose('services:\n  a:\n    volumes: ["/old/data/a:/data"]\n', [{ from: '/old/data', to: '/srv/$HOME' }]);
  assert.match(out, /\/srv\/\$\$HOME\/a:\/data/);
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type KadeWithGit, startKadeWithGit } from '../../../test/helpers/basic-kade.ts';

// Each app of the store says the format of the store it comes from (issue 26): Kade's own, or the store Kade
// imported it from, over real git and the API the store screen reads.
const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/import');
let kade: KadeWithGit;

before(async () => {
  kade = await startKadeWithGit({
    examples: join(import.meta.dirname, '../../../examples'),
    casa: join(FIXTURES, 'casaos/v2only'),
    tipi: join(FIXTURES, 'runtipi/v2only'),
    cosmos: join(FIXTURES, 'cosmos'),
  });
});
after(() => kade.close());

test('GET /api/store/apps gives every app its source format: kade, casaos, runtipi, cosmos', async () => {
  const { api, git } = kade;
  for (const [name, subdirectory] of [
    ['examples', 'apps'],
    ['casa', 'Apps'],
    ['tipi', 'apps'],
    ['cosmos', ''],
  ] as const) {
    const { job } = await api.addRepo({ id: name, name, url: git.url(name), branch: 'main', subdirectory });
    assert.equal(job.state, 'succeeded', job.log.join('\n'));
  }
  const apps = (await api.get('/api/store/apps')).body as { repo: string; app: string; format: string }[];
  const formats = (repo: string) => [...new Set(apps.filter((a) => a.repo === repo).map((a) => a.format))];
  assert.deepEqual(formats('examples'), ['kade']);
  assert.deepEqual(formats('casa'), ['casaos']);
  assert.deepEqual(formats('tipi'), ['runtipi']);
  assert.deepEqual(formats('cosmos'), ['cosmos']);
  assert.equal(apps.find((a) => a.app === 'conf-tipi')?.format, 'runtipi');
  const doc = JSON.stringify((await api.get('/api/openapi.json')).body);
  assert.ok(doc.includes('"format":{"type":"string","enum":["kade","runtipi","casaos","portainer","cosmos"]'), 'the OpenAPI document names the formats');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECK_DATA_DIR } from './check.ts';
import { accepted, rendered } from './store-quirks-kit.ts';

// Issue #26, class 4: a $ of the source's compose text that is no variable the importer maps.
test('class 4: a $ of the source that is no variable reaches compose as $$ (static compose, dynamic compose, CasaOS)', async () => {
  const yml = rendered('dollar-tipi').doc.services['dollar-tipi'];
  assert.equal(yml.command[2], 'echo "hi, it costs 5$$ (or $$5)"; exec httpd -f -p 8080');
  assert.deepEqual([yml.environment.PRICE, yml.environment.PROMPT, yml.environment.LAST_STATUS], ['5$$', '$$ ', 'exit $$?']);
  assert.equal(yml.healthcheck.test[1], 'wget -q --spider http://localhost:8080/ || exit $$?');
  const json = rendered('dollar-json-tipi').doc.services['dollar-json-tipi'];
  assert.equal(json.command, `sh -c 'echo pid $$ in ${CHECK_DATA_DIR}/dollar-json-tipi; exec httpd -f -p 8080'`);
  assert.deepEqual([json.environment.PS1, json.environment.TOTAL], ['$$ ', '100$$']);
  assert.equal(json.healthcheck.test, 'wget -q --spider http://localhost:8080/ ; exit $$?');
  const casaos = rendered('dollar-casa').doc.services.dollar;
  assert.equal(casaos.command[2], 'echo "costs 5$$, pid $$$$"; exec httpd -f -p 8080');
  assert.equal(casaos.environment.PRICE, '5$$');
  assert.equal(casaos.healthcheck.test[1], 'wget -q --spider http://localhost:8080/ || exit $$?');
  for (const id of ['dollar-tipi', 'dollar-json-tipi', 'dollar-casa']) await accepted(id);
});

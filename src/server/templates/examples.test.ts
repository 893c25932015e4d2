import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { loadTemplate } from './load.ts';
import { allFields, renderTemplate } from './render.ts';
import { resolveValues } from './values.ts';

const roots = ['examples/apps', 'test/fixtures/repos/basic/apps'];

for (const root of roots) {
  for (const app of readdirSync(root)) {
    test(`${root}/${app} loads and renders with its defaults`, () => {
      const { template, compose } = loadTemplate(join(root, app), app);
      const input: Record<string, string | number> = {};
      for (const f of allFields(template))
        if (f.required && f.default === undefined)
          input[f.id] = f.connect
            ? `${f.connect.scheme}://host.docker.internal:${f.connect.port}`
            : f.type === 'email'
              ? 'a@b.example'
              : f.type === 'url'
                ? 'https://app.example.org'
                : f.type === 'port' || f.type === 'number'
                  ? 1234
                  : `dummy-${f.id}-value`;
      const values = resolveValues(template, input, { dataDir: '/srv/appdata', uid: 1000, gid: 1000 });
      const out = renderTemplate({ template, compose, values, timezone: 'UTC' });
      const doc = parse(out.compose);
      assert.ok(Object.keys(doc.services).length > 0);
      for (const f of allFields(template).filter((x) => x.secret)) {
        const v = String(values[f.id] ?? '');
        if (v) assert.ok(!out.compose.includes(v), `secret ${f.id} stays out of the compose file`);
      }
    });
  }
}

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { TEMPLATE_SCHEMA_PATH, templateJsonSchema } from './json-schema.ts';

test('docs/template.schema.json is the JSON Schema of the zod template schema (npm run templates:schema)', () => {
  const stored: { properties: { fields: { items: { properties?: Record<string, unknown> } } } } = JSON.parse(readFileSync(TEMPLATE_SCHEMA_PATH, 'utf8'));
  assert.deepEqual({ ...stored }, templateJsonSchema());
  const fields = stored.properties.fields.items.properties ?? {};
  for (const attr of ['required', 'default', 'secret', 'generate', 'advanced', 'connect', 'credential', 'info']) assert.ok(attr in fields, attr);
});

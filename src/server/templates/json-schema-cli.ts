import { writeFileSync } from 'node:fs';
import { TEMPLATE_SCHEMA_PATH, templateJsonSchema } from './json-schema.ts';

// `npm run templates:schema`: writes docs/template.schema.json from the zod schema.
writeFileSync(TEMPLATE_SCHEMA_PATH, `${JSON.stringify(templateJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${TEMPLATE_SCHEMA_PATH}\n`);

import { z } from 'zod';
import { TemplateFile } from '../../shared/template.ts';

/** The JSON Schema of template.json, made from the zod schema the server validates with. */
export function templateJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(TemplateFile, { io: 'input' }),
    $id: 'https://kade.invalid/schemas/template-v1.json',
    title: 'Kade app template (template.json), format 1',
  };
}

export const TEMPLATE_SCHEMA_PATH = 'docs/template.schema.json';

/** Template format v1 (docs/templates.md): the schema of template.json, shared with the form renderer. */
import { z } from 'zod';
import { MAX_PATTERN_LENGTH, patternProblem } from './field-pattern.ts';
import { NAME_PATTERN } from './names.ts';

const FieldId = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'field ids are lower-case letters, digits and _');
const Text = z.union([z.string().min(1).max(500), z.object({ en: z.string().min(1).max(500), nl: z.string().min(1).max(500) })]);
const LongText = z.union([z.string().max(4000), z.object({ en: z.string().max(4000), nl: z.string().max(4000) })]);

export const FIELD_TYPES = ['text', 'password', 'number', 'port', 'boolean', 'path', 'select', 'email', 'url'] as const;

export const TemplateField = z
  .object({
    id: FieldId,
    label: Text,
    type: z.enum(FIELD_TYPES).default('text'),
    required: z.boolean().default(false),
    default: z.union([z.string().max(4000), z.number(), z.boolean()]).optional(),
    secret: z.boolean().default(false),
    /** true: a random value when left empty; false: never offer one (a value made up here would be wrong); absent: a button on secret password fields. */
    generate: z.boolean().optional(),
    /** A generated value's characters: base64url (the default) or hex (lower-case); its length is min_length, at least 32 (and at most max_length). */
    generate_encoding: z.enum(['base64url', 'hex']).optional(),
    advanced: z.boolean().default(false),
    /** number: the smallest and largest value allowed. */
    min: z.number().optional(),
    max: z.number().optional(),
    /** text, password, path: the whole value must match this regular expression (RE2 syntax, see field-pattern.ts). */
    pattern: z.string().min(1).max(MAX_PATTERN_LENGTH).optional(),
    /** text and password: at least this many characters. */
    min_length: z.number().int().min(1).max(4000).optional(),
    /** text and password: at most this many characters. */
    max_length: z.number().int().min(1).max(4000).optional(),
    /** password: refuse weak values (see docs/templates.md, "Validation"). */
    strong: z.boolean().optional(),
    connect: z
      .object({ app: z.string().regex(NAME_PATTERN), scheme: z.string().regex(/^[a-z][a-z0-9+.-]*$/), port: z.number().int().min(1).max(65535) })
      .optional(),
    credential: z.enum(['username', 'password', 'url', 'other']).optional(),
    info: LongText.optional(),
    options: z
      .array(z.object({ value: z.string().max(200), label: Text }))
      .max(200)
      .optional(),
    env: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{0,62}$/, 'env names are upper-case letters, digits and _')
      .optional(),
  })
  .strict()
  // Here and not on `pattern` itself, so the message names the field (lint, load and the import report show it).
  .superRefine((f, ctx) => {
    const problem = f.pattern === undefined ? null : patternProblem(f.pattern);
    if (problem) ctx.addIssue({ code: 'custom', path: ['pattern'], message: `the pattern of field '${f.id}' ${problem}` });
  });

export const TemplateGroup = z
  .object({
    id: FieldId,
    label: Text,
    toggle: z.boolean().default(false),
    toggle_default: z.boolean().default(true),
    advanced: z.boolean().default(false),
    fields: z.array(TemplateField).max(100),
  })
  .strict();

/** A variable of a compose service's environment (or `.env`) that holds a database credential. */
const VariableName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'variable names are letters, digits and _');

/** A database the backup dumps: the compose service that runs it and where its credentials are. */
export const TemplateDatabase = z
  .object({
    service: z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,62}$/, 'a compose service name'),
    kind: z.enum(['postgres', 'mariadb']),
    user_env: VariableName.optional(),
    password_env: VariableName.optional(),
    database_env: VariableName.optional(),
  })
  .strict();

export const TemplateBackup = z
  .object({
    databases: z
      .array(TemplateDatabase)
      .max(20)
      .refine((list) => new Set(list.map((d) => d.service)).size === list.length, 'each service is declared once'),
  })
  .strict();

export const TemplateFile = z
  .object({
    format: z.literal(1).default(1),
    name: z.string().min(1).max(100),
    description: LongText.default(''),
    version: z.string().min(1).max(50),
    icon: z.string().max(2048).optional(),
    tags: z.array(z.string().min(1).max(40)).max(30).default([]),
    metadata: z
      .object({ categories: z.array(z.string().regex(NAME_PATTERN)).max(17).default([]) })
      .strict()
      .default({ categories: [] }),
    web: z
      .object({
        port_field: FieldId.optional(),
        port: z.number().int().min(1).max(65535).optional(),
        scheme: z.enum(['http', 'https']).default('http'),
        path: z.string().startsWith('/').max(500).default('/'),
      })
      .strict()
      .optional(),
    fields: z.array(TemplateField).max(200).default([]),
    groups: z.array(TemplateGroup).max(50).default([]),
    /** The databases a backup dumps; absent: found from the compose file's images and environment. */
    backup: TemplateBackup.optional(),
  })
  .strict();

export type TemplateFieldT = z.infer<typeof TemplateField>;
export type TemplateGroupT = z.infer<typeof TemplateGroup>;
export type TemplateFileT = z.infer<typeof TemplateFile>;
export type TemplateDatabaseT = z.infer<typeof TemplateDatabase>;
export type FieldValue = string | number | boolean;

/** The English text of a template string that may carry both languages (the server's default). */
export const englishText = (t: string | { en: string; nl: string }): string => (typeof t === 'string' ? t : t.en);

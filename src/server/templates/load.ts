import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TemplateFile, type TemplateFileT } from '../../shared/template.ts';
import { AppError } from '../core/errors.ts';
import { MAX_TEMPLATE_BYTES } from './render.ts';

export interface LoadedTemplate {
  template: TemplateFileT;
  compose: string;
  dir: string;
}

export const COMPOSE_TEMPLATE_NAMES = ['docker-compose.yml', 'compose.yml', 'docker-compose.yaml', 'compose.yaml'];

/** Reads a file only when it is a regular file (no link, no device) below the size limit. */
export function readRegularFile(path: string, max = MAX_TEMPLATE_BYTES): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return null;
  }
  if (!st.isFile()) return null;
  if (st.size > max) throw new AppError('template_invalid', `${path} is larger than ${max} bytes`, { params: { path } });
  return readFileSync(path, 'utf8');
}

/** Loads and validates one app template directory; names the file and the rule that failed. */
export function loadTemplate(dir: string, app: string): LoadedTemplate {
  const raw = readRegularFile(join(dir, 'template.json'));
  if (raw === null) throw new AppError('template_invalid', `app '${app}' has no template.json`, { params: { app } });
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new AppError('template_invalid', `template.json of '${app}' is not valid JSON: ${(e as Error).message}`, { params: { app } });
  }
  const parsed = TemplateFile.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    throw new AppError('template_invalid', `template.json of '${app}': ${i?.path.join('.') ?? ''} ${i?.message ?? ''}`.trim(), { params: { app } });
  }
  for (const name of COMPOSE_TEMPLATE_NAMES) {
    const compose = readRegularFile(join(dir, name));
    if (compose !== null) return { template: parsed.data, compose, dir };
  }
  throw new AppError('template_invalid', `app '${app}' has no docker-compose.yml`, { params: { app } });
}

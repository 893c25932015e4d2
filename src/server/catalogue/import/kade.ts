/** Kade's own format (template.json beside a compose template) through the importer contract. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { isSafeName } from '../../../shared/names.ts';
import { AppError } from '../../core/errors.ts';
import { COMPOSE_TEMPLATE_NAMES, loadTemplate } from '../../templates/load.ts';
import type { AppFolderImporter } from './types.ts';

export const kadeImporter: AppFolderImporter = {
  format: 'kade',
  detect: (dir) => existsSync(join(dir, 'template.json')),
  importApp(dir, name) {
    // Kade's own apps keep their folder name as id, so it must be one already (it is never rewritten).
    if (!isSafeName(name)) {
      throw new AppError('template_invalid', 'the folder name is not a safe app id (lower-case letters, digits, _ and -, at most 63)');
    }
    const { template, compose } = loadTemplate(dir, name);
    return { id: name, template, compose, notes: [] };
  },
};

/** A folder with only a compose file that no other importer claims: Kade's format missing its template.json. */
export const plainComposeImporter: AppFolderImporter = {
  ...kadeImporter,
  detect: (dir) => COMPOSE_TEMPLATE_NAMES.some((f) => existsSync(join(dir, f))),
};

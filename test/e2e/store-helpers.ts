import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A template repo with `count` tiny apps (more than one page of store cards), written for an
 * older Kade so the repos screen shows it as outdated. Labels: `bulk` on every app, and ten
 * `batch-N` labels of `count / 10` apps each, so they rank above the examples' labels.
 */
export function writeBulkRepo(dir: string, count: number): void {
  writeFileSync(join(dir, 'VERSION'), 'v0.0.50\n');
  for (let i = 1; i <= count; i++) {
    const id = `bulk-${String(i).padStart(3, '0')}`;
    const app = join(dir, 'apps', id);
    mkdirSync(app, { recursive: true });
    const template = {
      name: `Bulk app ${String(i).padStart(3, '0')}`,
      description: { en: `Generated test app number ${i}.`, nl: `Gegenereerde test-app nummer ${i}.` },
      version: '1.0.0',
      tags: ['bulk', `batch-${i % 10}`],
      metadata: { categories: ['overig'] },
      fields: [{ id: 'port', label: 'Port', type: 'port', default: 20000 + i, required: true }],
    };
    writeFileSync(join(app, 'template.json'), JSON.stringify(template, null, 2));
    writeFileSync(
      join(app, 'docker-compose.yml'),
      ['services:', '  web:', '    image: traefik/whoami:v1.10', '    ports:', '      - "{{port}}:80"', ''].join('\n'),
    );
  }
}

/** A stack folder as an install from `repo`/`app` leaves it; its image is never pulled or started here. */
export function addInstalledStack(baseDir: string, name: string, repo: string, app: string): void {
  const dir = join(baseDir, 'stacks', name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'docker-compose.yml'), ['services:', '  web:', '    image: kade-e2e-absent-image:never', '    pull_policy: never', ''].join('\n'));
  const meta = {
    format: 1,
    source: { repo, app, commit: null },
    values: {},
    value_types: {},
    secret_env: {},
    services: { web: {} },
    networks: [],
    web: null,
    categories: [],
    template_version: null,
    installed_at: new Date().toISOString(),
  };
  writeFileSync(join(dir, '.svc.json'), JSON.stringify(meta, null, 2));
}

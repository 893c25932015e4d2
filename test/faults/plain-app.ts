import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { parseEnv } from '../../src/server/stacks/store/env-file.ts';
import type { ApiClient } from '../helpers/client.ts';

// The app the fault tests change: a busybox service whose form value `title` goes into the compose file
// and whose secret `token` goes into `.env`, so "which version runs" can be read off files and container.
const execFileP = promisify(execFile);
export const docker = async (args: string[]) => (await execFileP('docker', args, { timeout: 60_000 })).stdout.trim();

/** The three files a reconfigure, an editor or a snapshot restore changes. */
export const FILES = ['docker-compose.yml', '.env', '.svc.json'] as const;

/** Writes the `plain` template repo (folder `apps`) to `dir`; `image` is the service's image. */
/**
 * `slowUp`: the app's container answers its health check only 4 s after it starts, and a second service waits for
 * that (`depends_on: service_healthy`), so every `up` that recreates the app runs at least that long, whatever the
 * machine's load: a test that kills Kade during `up` then finds it still running.
 */
export function writePlainRepo(dir: string, image = 'kade-test/busybox:1', opts: { slowUp?: boolean } = {}): void {
  const app = join(dir, 'apps', 'plain');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(dir, 'VERSION'), 'v0.1.00\n');
  writeFileSync(
    join(app, 'template.json'),
    JSON.stringify({
      name: 'Plain',
      description: 'A value in the compose file and a secret in .env.',
      version: '1.0.0',
      tags: ['test'],
      fields: [
        { id: 'title', label: 'Title', default: 'old' },
        { id: 'token', label: 'Token', type: 'password', secret: true, default: 'token-old-1' },
      ],
    }),
  );
  writeFileSync(
    join(app, 'docker-compose.yml'),
    [
      'services:',
      '  app:',
      `    image: ${image}`,
      '    init: true',
      ...(opts.slowUp
        ? [
            '    command: ["sh", "-c", "sleep 4; touch /tmp/ready; exec sleep 3600"]',
            '    healthcheck:',
            '      test: ["CMD", "test", "-e", "/tmp/ready"]',
            '      interval: 1s',
            '      retries: 60',
          ]
        : ['    command: ["sleep", "3600"]']),
      '    environment:',
      '      TITLE: "{{title}}"',
      '      TOKEN: "{{token}}"',
      '    labels:',
      '      kade.test: "1"',
      ...(opts.slowUp
        ? [
            '  after:',
            `    image: ${image}`,
            '    init: true',
            '    command: ["sleep", "3600"]',
            '    depends_on:',
            '      app:',
            '        condition: service_healthy',
            '    labels:',
            '      kade.test: "1"',
          ]
        : []),
      '',
    ].join('\n'),
  );
}

/** The app's three files as bytes (a missing file reads as null). */
export function readFiles(stackDir: string): (string | null)[] {
  return FILES.map((f) => {
    try {
      return readFileSync(join(stackDir, f), 'latin1');
    } catch {
      return null;
    }
  });
}

/** What the app's files say the container gets: TITLE from the compose file, TOKEN through `.env`. */
export function fileValues(stackDir: string): { title: string; token: string } {
  const compose = parse(readFileSync(join(stackDir, 'docker-compose.yml'), 'utf8'));
  const env = parseEnv(readFileSync(join(stackDir, '.env'), 'utf8'));
  const ref = /^\$\{([A-Z0-9_]+)\}$/.exec(String(compose.services.app.environment.TOKEN))?.[1] ?? '';
  return { title: String(compose.services.app.environment.TITLE), token: env[ref] ?? `(no ${ref} in .env)` };
}

/** The values the app's container was created with and its state, read from the engine itself. */
export async function containerValues(api: ApiClient, name: string): Promise<{ title: string; token: string; state: string }> {
  const r = await api.get<{ containers: { id: string; service: string; state: string }[] }>(`/api/stacks/${name}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const c = r.body.containers.find((x) => x.service === 'app');
  assert.ok(c, `${name} has an app container: ${JSON.stringify(r.body)}`);
  const list = JSON.parse(await docker(['inspect', '--format', '{{json .Config.Env}}', c.id])) as string[];
  const env = Object.fromEntries(list.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
  return { title: env.TITLE ?? '', token: env.TOKEN ?? '', state: c.state };
}

/** Starts a job through the API, asserting the 202; returns the job id. */
export async function startJob(api: ApiClient, method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<string> {
  const r = await api.call<{ job: { id: string } }>(method, path, body);
  assert.equal(r.status, 202, `${method} ${path}: ${JSON.stringify(r.body)}`);
  return r.body.job.id;
}

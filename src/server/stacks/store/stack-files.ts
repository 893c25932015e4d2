import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import type { FieldValue } from '../../../shared/template.ts';

export const COMPOSE_FILE = 'docker-compose.yml';
export const ENV_FILE = '.env';
export const META_FILE = '.svc.json';
export const COMPOSE_NAMES = [COMPOSE_FILE, 'docker-compose.yaml', 'compose.yml', 'compose.yaml'];

/** `.svc.json`: everything needed to reopen the form and re-apply choices; never a secret. */
export const StackMeta = z.object({
  format: z.literal(1),
  source: z.object({ repo: z.string(), app: z.string(), commit: z.string().nullable() }).nullable(),
  values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  value_types: z.record(z.string(), z.string()),
  secret_env: z.record(z.string(), z.string()),
  /** `.env` keys the editors keep masked besides the secret fields': marked `# secret`, or once hidden from an operator. */
  secret_keys: z.array(z.string()).optional(),
  services: z.record(
    z.string(),
    z.object({
      shared_network: z.boolean().optional(),
      tag: z.string().optional(),
      volumes: z.array(z.object({ host: z.string(), container: z.string(), read_only: z.boolean() })).optional(),
      devices: z.array(z.string()).optional(),
      /** Older format: the service's own address on the first chosen shared network (see `networks`). */
      ip: z.string().optional(),
      /** The shared networks this service joined, each with its own address when one was chosen. */
      networks: z.record(z.string(), z.object({ ip: z.string().optional() })).optional(),
    }),
  ),
  /** The shared networks the app joined (SHARED_NETWORK, APP_NETWORKS). */
  networks: z.array(z.string()),
  /** The subnet Kade's own pool gave each network of the app's compose project (`default` included). */
  subnets: z.record(z.string(), z.string()).optional(),
  /** Set for an app adopted from outside: the user's folder and the compose project its containers carry. */
  adopted: z.object({ path: z.string(), project: z.string() }).optional(),
  web: z.object({ scheme: z.string(), port: z.number(), path: z.string() }).nullable(),
  categories: z.array(z.string()),
  template_version: z.string().nullable(),
  installed_at: z.string(),
});
export type StackMetaT = z.infer<typeof StackMeta>;

/** The metadata of an app no template made (adopted, or a benchmark's fleet): no source, values or choices. */
export function emptyMeta(installedAt: string, more: Partial<StackMetaT> = {}): StackMetaT {
  return {
    format: 1,
    source: null,
    values: {},
    value_types: {},
    secret_env: {},
    services: {},
    networks: [],
    web: null,
    categories: [],
    template_version: null,
    installed_at: installedAt,
    ...more,
  };
}

export function composePath(dir: string): string | null {
  for (const n of COMPOSE_NAMES) if (existsSync(join(dir, n))) return join(dir, n);
  return null;
}

/** Parsed files cached by path and modification time, so the list endpoints never re-parse unchanged files. */
export function createFileCache<T>(parseText: (text: string) => T) {
  const cache = new Map<string, { mtimeMs: number; size: number; value: T }>();
  return (path: string): T | null => {
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(path);
    } catch {
      cache.delete(path);
      return null;
    }
    const hit = cache.get(path);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.value;
    let value: T;
    try {
      value = parseText(readFileSync(path, 'utf8'));
    } catch {
      cache.delete(path);
      return null;
    }
    cache.set(path, { mtimeMs: st.mtimeMs, size: st.size, value });
    return value;
  };
}

export interface ComposeSummary {
  services: string[];
  valid: boolean;
}

export const readComposeSummary = createFileCache<ComposeSummary>((text) => {
  const doc = parse(text) as { services?: Record<string, unknown> } | null;
  const services = doc && typeof doc.services === 'object' && doc.services !== null ? Object.keys(doc.services) : [];
  return { services, valid: services.length > 0 };
});

/** A folder, or a link to one (an adopted app's reference). */
export const isDirectory = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export type Values = Record<string, FieldValue>;

/** A compose text as a plain object ({} when empty or unreadable); aliases are bounded like in the renderer. */
export function parseComposeDoc(text: string): Record<string, unknown> {
  try {
    const doc = parse(text, { maxAliasCount: 100 }) as unknown;
    return doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

import { createRoute, type RouteConfig } from '@hono/zod-openapi';
import { z } from 'zod';
import { Problem } from '../../shared/api.ts';
import type { Access } from '../../shared/roles.ts';
import { guard } from './guard.ts';

export const ACCESS_KEY = 'x-kade-access';

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});

/** Error answers every route may give; listed once so the OpenAPI document shows them. */
export const PROBLEMS = {
  400: problem('bad input'),
  401: problem('not logged in'),
  403: problem('role or CSRF token refused'),
} as const;

export const json = <T extends z.ZodType>(schema: T, description = 'ok') => ({
  description,
  content: { 'application/json': { schema } },
});

export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { 'application/json': { schema } },
});

/**
 * Every route declares who may call it. The guard enforces it, and the declared
 * access is kept in the OpenAPI document so tests can be generated from it.
 */
export function defineRoute<const R extends Omit<RouteConfig, 'middleware'>>(access: Access, config: R) {
  return createRoute({
    ...config,
    [ACCESS_KEY]: access,
    middleware: [guard(access)] as const,
  });
}

export const NameParam = z.object({ name: z.string() });

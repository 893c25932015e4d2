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

export const optionalJsonBody = <T extends z.ZodType>(schema: T) => ({
  required: false,
  content: { 'application/json': { schema } },
});

/** What `defineRoute` makes of a config R. */
type Defined<R> = R & { [ACCESS_KEY]: Access; middleware: [ReturnType<typeof guard>]; getRoutingPath(): string };
type Method = 'get' | 'post' | 'put' | 'delete';
type Answer = NonNullable<RouteConfig['responses'][string]>;
type Body = NonNullable<NonNullable<RouteConfig['request']>['body']>;

/**
 * What a route takes and answers besides its path: path parameters, query, the body (a schema is a required JSON
 * body) and per status a schema (answered as JSON) or a whole answer. PROBLEMS come with every route but those
 * that say `problems: false`.
 */
export interface RouteParts {
  params?: z.ZodObject | z.ZodPipe;
  query?: z.ZodObject | z.ZodPipe;
  body?: z.ZodType | Body;
  /** The route answers anyone, always: it lists no problem answers. */
  problems?: false;
  [status: number]: z.ZodType | Answer;
}

type RequestOf<P extends RouteParts> = { [K in keyof P & ('params' | 'query')]: P[K] } & {
  [K in keyof P & 'body']: P[K] extends z.ZodType ? ReturnType<typeof jsonBody<P[K]>> : P[K];
};
type AnswersOf<P extends RouteParts> = { [K in keyof P as K extends number ? K : never]: P[K] extends z.ZodType ? ReturnType<typeof json<P[K]>> : P[K] };
type ResponsesOf<P extends RouteParts> = AnswersOf<P> & (P extends { problems: false } ? unknown : typeof PROBLEMS);

function requestOf(parts: RouteParts): RouteConfig['request'] {
  const { params, query, body } = parts;
  if (!params && !query && !body) return undefined;
  return { ...(params ? { params } : {}), ...(query ? { query } : {}), ...(body ? { body: body instanceof z.ZodType ? jsonBody(body) : body } : {}) };
}

function responsesOf(parts: RouteParts): RouteConfig['responses'] {
  const answers = Object.entries(parts).filter(([key]) => /^\d+$/.test(key));
  return {
    ...Object.fromEntries(answers.map(([status, a]) => [status, a instanceof z.ZodType ? json(a) : a])),
    ...(parts.problems === false ? {} : PROBLEMS),
  };
}

/**
 * The routes of one part of the API (the OpenAPI tag): `get(path, access, parts).summary(text, description?)`
 * is `defineRoute(access, { method: 'get', path, tags, summary, description, request, responses })` with the
 * request and responses built from `parts`; the OpenAPI document is the same as for that config written out.
 */
export function routeGroup(...tags: string[]) {
  const at =
    <M extends Method>(method: M) =>
    <Path extends string, P extends RouteParts>(path: Path, access: Access, parts: P) => ({
      summary(summary: string, description?: string) {
        const request = requestOf(parts);
        const config = {
          method,
          path,
          tags,
          summary,
          ...(description ? { description } : {}),
          ...(request ? { request } : {}),
          responses: responsesOf(parts),
        };
        // The config is built at run time; its type is the one defineRoute would infer for it written out.
        type Config = { method: M; path: Path; tags: string[]; summary: string; request: RequestOf<P>; responses: ResponsesOf<P> };
        return defineRoute(access, config as never) as unknown as Defined<Config>;
      },
    });
  return { get: at('get'), post: at('post'), put: at('put'), delete: at('delete') };
}

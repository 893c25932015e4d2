import { useEffect, useState } from 'preact/hooks';
import type { SchemaIssue } from './field-messages.ts';
import type { CHECKS, SchemaName } from './schema-checks.ts';

let loading: Promise<typeof CHECKS> | null = null;
const load = (): Promise<typeof CHECKS> => {
  loading ??= import('./schema-checks.ts').then((m) => m.CHECKS);
  return loading;
};

/**
 * What the server's schema `name` says about `body`, recomputed on every change; empty until the schemas are
 * loaded (a moment after the form appears) or while there is no body.
 */
export function useSchemaIssues(name: SchemaName, body: unknown): SchemaIssue[] {
  const [checks, setChecks] = useState<typeof CHECKS | null>(null);
  const present = body !== null && body !== undefined;
  useEffect(() => {
    if (!present || checks) return;
    let live = true;
    load().then(
      (c) => live && setChecks(c),
      // Without the check the form still works: the server's answer names what is wrong.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [present, checks]);
  return checks && present ? checks[name](body) : [];
}

/** The same check once, for a save: waits for the schemas. */
export async function schemaIssues(name: SchemaName, body: unknown): Promise<SchemaIssue[]> {
  return (await load())[name](body);
}

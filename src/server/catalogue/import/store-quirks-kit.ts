/**
 * For the tests of issue #26's classes: the fixture stores of what the real Runtipi and CasaOS stores hold that
 * made rendered files fail (test/fixtures/import/<format>/quirks), each app rendered as the check renders it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { parse } from 'yaml';
import { composeCheck, renderWithDefaults } from './check.ts';
import { type ImportedEntry, importTree } from './importers.ts';

const FIXTURES = join(import.meta.dirname, '../../../../test/fixtures/import');
export const TIPI_QUIRKS = join(FIXTURES, 'runtipi/quirks/apps');
export const CASA_QUIRKS = join(FIXTURES, 'casaos/quirks/Apps');

const trees = [importTree(TIPI_QUIRKS), importTree(CASA_QUIRKS)];

export function quirksApp(id: string): ImportedEntry {
  const a = trees.flatMap((t) => t.apps).find((x) => x.id === id);
  assert.ok(a, `${id} is imported (refused: ${JSON.stringify(trees.flatMap((t) => t.refused))})`);
  return a;
}

export interface QuirksRender {
  // biome-ignore lint/suspicious/noExplicitAny: a parsed compose document, read by the tests
  doc: any;
  env: Record<string, string>;
  compose: string;
}

export function rendered(id: string): QuirksRender {
  const r = renderWithDefaults(quirksApp(id));
  return { ...r, doc: parse(r.compose) };
}

/** Asserts the compose CLI accepts the app rendered with its defaults and stand-ins. */
export async function accepted(id: string): Promise<void> {
  const r = renderWithDefaults(quirksApp(id));
  assert.equal(await composeCheck(id, r.compose, r.env), null, id);
}

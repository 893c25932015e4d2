import './zod-jitless.ts';
import { NotificationsUpdate } from '../../shared/notifications.ts';
import { SettingsUpdate } from '../../shared/settings.ts';
import type { SchemaIssue } from './field-messages.ts';

/**
 * The server's own schemas, run in the browser while the user types; loaded with zod on the first edit of a
 * form that needs them (use-schema-issues.ts), never with the first screen.
 */
const issuesOf = (schema: { safeParse: (v: unknown) => { success: boolean; error?: { issues: SchemaIssue[] } } }, body: unknown): SchemaIssue[] => {
  const r = schema.safeParse(body);
  return r.success ? [] : (r.error?.issues ?? []);
};

export const CHECKS = {
  settings: (body: unknown) => issuesOf(SettingsUpdate, body),
  notifications: (body: unknown) => issuesOf(NotificationsUpdate, body),
};
export type SchemaName = keyof typeof CHECKS;

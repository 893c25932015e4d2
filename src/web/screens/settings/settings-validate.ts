import './zod-jitless.ts';
import type { SettingsUpdateT } from '../../../shared/settings.ts';
import { SettingsUpdate } from '../../../shared/settings.ts';

/** The keys the server's own schema would refuse in this body, or none. */
export function invalidKeysOf(body: SettingsUpdateT): string[] {
  const r = SettingsUpdate.safeParse(body);
  if (r.success) return [];
  return [...new Set(r.error.issues.map((i) => String(i.path[0] ?? '')).filter(Boolean))];
}

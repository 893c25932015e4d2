import type { DoctorCode, DoctorParams } from '../../../shared/doctor.ts';
import { isMessageKey, type MessageKey, type MessageParams, t } from '../../i18n.ts';

/** A folder's entry count as the doctor's `inside` and `outside` params carry it, or why there is none. */
function seen(v: string | number | undefined): string {
  if (v === 1) return t('doctor.seen.entry');
  if (typeof v === 'number') return t('doctor.seen.entries', { count: v });
  if (v === 'missing' || v === 'not_a_folder' || v === 'unreadable') return t(`doctor.seen.${v}`);
  return t('doctor.seen.unknown');
}

/** The reasons without params; outside_base names the mounted folder. */
const REASONS: Record<string, MessageKey> = {
  relative: 'paths.reason.relative',
  system: 'paths.reason.system',
  not_a_directory: 'paths.reason.not_a_directory',
  not_writable: 'paths.reason.not_writable',
  not_creatable: 'paths.reason.not_creatable',
  missing: 'paths.reason.missing',
  not_allowed: 'paths.reason.not_allowed',
};

/** The reason a folder cannot be used, in the words of the settings screen's path check. */
function reason(p: DoctorParams): string {
  const r = String(p.reason);
  if (r === 'outside_base') return t('paths.reason.outside_base', { base: String(p.base) });
  const key = REASONS[r];
  return key ? t(key) : r;
}

/** The params a finding's text uses: its own, with the folder's place, the counts and the reason put into words. */
export function textParams(code: DoctorCode, p: DoctorParams): MessageParams {
  const out: MessageParams = { ...p };
  if (code.startsWith('mount_') && code !== 'mount_source') {
    const path = String(p.path);
    out.where = p.host_path === undefined ? path : t('doctor.where_host', { path, host: String(p.host_path) });
    out.inside = seen(p.inside);
    out.outside = seen(p.outside);
    out.why = p.why === undefined ? '' : t('doctor.why', { why: String(p.why) });
  }
  if (code === 'path_unusable') out.reason = reason(p);
  return out;
}

/** A finding (or a detail line) in the user's language; the server's English for a code this interface does not know. */
export function findingText(f: { code: DoctorCode; params: DoctorParams }, english: string): string {
  const key = `doctor.msg.${f.code}`;
  return isMessageKey(key) ? t(key as MessageKey, textParams(f.code, f.params)) : english;
}

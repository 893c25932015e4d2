import type { DoctorCheckT, DoctorReportT } from '../../../shared/doctor.ts';
import { request } from '../../api.ts';
import type { MessageKey } from '../../i18n.ts';

export type { DoctorCheckT, DoctorReportT };

export const fetchDoctor = (): Promise<DoctorReportT> => request<DoctorReportT>('GET', '/api/doctor');

const KINDS = ['engine', 'own_container', 'mount', 'account', 'disk', 'paths', 'stacks', 'app_files', 'store'] as const;

/** The translated name of a check's kind: its id up to the first ':' (`mount:/srv/kade` is a mount). */
export function checkTitle(id: string): MessageKey {
  const kind = id.split(':')[0] ?? '';
  return (KINDS as readonly string[]).includes(kind) ? (`doctor.check.${kind}` as MessageKey) : 'doctor.check.other';
}

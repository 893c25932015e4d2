/**
 * Stable error codes shared by server and interface. The interface translates
 * a code (with its params) into nl or en; the server maps it to an HTTP status.
 */
export const ERROR_CODES = [
  'validation',
  'invalid_json',
  'invalid_name',
  'required_fields',
  'not_found',
  'unauthenticated',
  'bad_credentials',
  'wrong_password',
  'forbidden',
  'csrf',
  'host_not_allowed',
  'own_container',
  'conflict',
  'slot_busy',
  'name_taken',
  /** The same repository, branch and folder is added already (params: id, name). */
  'repo_exists',
  'setup_done',
  'last_admin',
  'payload_too_large',
  'rate_limited',
  'engine_unreachable',
  'compose_failed',
  'db_password_failed',
  'db_dump_failed',
  'db_load_failed',
  'registry_unreachable',
  'git_failed',
  'invalid_git_url',
  'template_invalid',
  'compose_invalid',
  'path_unreachable',
  'forbidden_path',
  'read_only_setting',
  'setting_not_available',
  'compose_refused',
  'stack_files_refused',
  'app_powers_refused',
  'disk_full',
  'archive_refused',
  'network_invalid',
  'network_in_use',
  'network_pool_exhausted',
  'not_implemented',
  'library_unreadable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorParams = Record<string, string | number | boolean>;

/** The RFC 9457 body every error answer carries. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  params: ErrorParams;
  fields: string[];
}

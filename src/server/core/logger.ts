import { type Logger, pino } from 'pino';

export type { Logger };

/** Keys whose values never reach a log line, wherever they sit in the logged object. */
export const REDACT_PATHS = [
  'password',
  'token',
  'secret',
  '*.password',
  '*.token',
  '*.secret',
  '*.current_password',
  '*.new_password',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.headers.authorization',
  'values.*',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const opts = { level, base: null, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  return destination ? pino(opts, destination) : pino(opts);
}

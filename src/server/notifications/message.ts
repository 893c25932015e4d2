import type { MessageKind } from '../../shared/notifications.ts';

/** One notification as every channel gets it. */
export interface Message {
  kind: MessageKind;
  title: string;
  message: string;
  /** What it is about: an app, a backup, a job, a folder, a container. */
  subject: string;
  at: string;
}

/** What a channel answered: `status` is the HTTP status or the SMTP reply code. */
export interface SendResult {
  ok: boolean;
  status?: number;
  error?: string;
}

/**
 * Why a send failed, as one of a few fixed phrases: never the remote side's own words. A channel may point at any
 * service on this host (ntfy beside Kade is the common case), so echoing its banner or reply text would let an admin's
 * test button read whatever a loopback port says first.
 */
export function describeFailure(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } } | null;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.code === 'ETIMEDOUT') return `no answer within ${timeoutMs / 1000} s`;
  const code = String(e?.cause?.code ?? e?.code ?? '');
  const text = `${e?.message ?? ''} ${e?.cause?.message ?? ''}`;
  if (code === 'ECONNREFUSED' || text.includes('ECONNREFUSED')) return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || text.includes('ENOTFOUND')) return 'host not found';
  if (code === 'ECONNRESET' || text.includes('ECONNRESET')) return 'connection reset';
  if (code === 'EAUTH') return 'authentication failed';
  if (code === 'ETLS' || /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO|DEPTH_ZERO|SELF_SIGNED)/.test(code)) return 'TLS failed';
  if (/timeout|timed out/i.test(text)) return `no answer within ${timeoutMs / 1000} s`;
  return 'failed: the server did not answer as expected';
}

import { describeFailure, type Message, type SendResult } from './message.ts';
import type { StoredChannel } from './notifications.repo.ts';

/** Extra trust for SMTP over TLS: certificates (PEM) trusted besides the system's; tests pass their own CA. */
export interface SmtpTrust {
  ca?: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The SMTP reply code at the start of a server's answer ("250 OK ..."). */
const replyCode = (text: unknown): number | undefined => {
  const m = typeof text === 'string' ? /^(\d{3})\b/.exec(text) : null;
  return m ? Number(m[1]) : undefined;
};

/**
 * One e-mail over SMTP with nodemailer, plain text and HTML. `tls` connects with TLS at once, `starttls` requires
 * the upgrade (a server that does not offer it is refused), `none` never upgrades. Never throws.
 */
export async function sendMail(c: StoredChannel, m: Message, timeoutMs: number, trust: SmtpTrust = {}): Promise<SendResult> {
  const s = c.smtp;
  if (!s) return { ok: false, error: 'no SMTP server set' };
  // Loaded at the first e-mail, not at start: most installs never send one (issue #18, cold start and memory).
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport({
    host: s.host,
    port: s.port,
    secure: s.security === 'tls',
    requireTLS: s.security === 'starttls',
    ignoreTLS: s.security === 'none',
    ...(s.username ? { auth: { user: s.username, pass: s.password ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    ...(trust.ca ? { tls: { ca: [trust.ca] } } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('timeout'), { name: 'TimeoutError' })), timeoutMs);
  });
  try {
    const info = await Promise.race([
      transport.sendMail({
        from: s.from,
        to: s.to,
        subject: m.title,
        text: `${m.message}\n\n${m.at}`,
        html: `<p><strong>${escapeHtml(m.title)}</strong></p><p>${escapeHtml(m.message).replace(/\n/g, '<br>')}</p><p><small>${escapeHtml(m.at)}</small></p>`,
      }),
      limit,
    ]);
    const status = replyCode(info.response);
    return { ok: true, ...(status !== undefined ? { status } : {}) };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; code?: string };
    const status = e.responseCode ?? replyCode(e.response);
    // The reply code only, never the server's text (describeFailure says why).
    const error = status !== undefined && e.code !== 'EAUTH' ? `SMTP reply ${status}` : describeFailure(err, timeoutMs);
    return { ok: false, ...(status !== undefined ? { status } : {}), error };
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}

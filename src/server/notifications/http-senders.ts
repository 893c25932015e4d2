import type { NotificationKind } from '../../shared/notifications.ts';
import { describeFailure, type Message, type SendResult } from './message.ts';
import type { StoredChannel } from './notifications.repo.ts';

/** ntfy priorities: failures and stops are high (4), the rest default (3). */
const PRIORITY: Record<NotificationKind | 'test', string> = {
  backup_failed: '4',
  archive_unreadable: '4',
  job_stuck: '4',
  container_stopped: '4',
  security_refusal: '5',
  disk_low: '4',
  update_available: '3',
  test: '3',
};

/** A header value: one line, and non-ASCII text as an RFC 2047 encoded word (ntfy reads those). */
export function headerValue(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ').slice(0, 250);
  return /^[\x20-\x7e]*$/.test(line) ? line : `=?UTF-8?B?${Buffer.from(line, 'utf8').toString('base64')}?=`;
}

/** The body a webhook receiver of each format expects. */
export function webhookBody(format: StoredChannel['format'], m: Message): unknown {
  const text = `${m.title}\n${m.message}`;
  if (format === 'slack') return { text };
  if (format === 'discord') return { content: text.slice(0, 2000) };
  if (format === 'matrix') return { msgtype: 'm.text', body: text };
  return { kind: m.kind, title: m.title, message: m.message, subject: m.subject, at: m.at };
}

async function post(url: string, init: { headers: Record<string, string>; body: string }, timeoutMs: number): Promise<SendResult> {
  try {
    // Redirects are not followed: a channel posts where it was told, nowhere else.
    const res = await fetch(url, { method: 'POST', ...init, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel().catch(() => undefined);
    // The number only: the status text is the remote side's own words (describeFailure says why).
    return res.ok ? { ok: true, status: res.status } : { ok: false, status: res.status, error: `HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, error: describeFailure(err, timeoutMs) };
  }
}

/** ntfy-style publish: the message as the body of a POST to the topic URL, the rest in headers. */
export function sendPush(c: StoredChannel, m: Message, timeoutMs: number): Promise<SendResult> {
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=utf-8',
    title: headerValue(m.title),
    priority: PRIORITY[m.kind],
    tags: `kade,${m.kind}`,
  };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  return post(c.url ?? '', { headers, body: m.message }, timeoutMs);
}

/** A JSON POST in the channel's format; the token, when set, as a Bearer header. */
export function sendWebhook(c: StoredChannel, m: Message, timeoutMs: number): Promise<SendResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  return post(c.url ?? '', { headers, body: JSON.stringify(webhookBody(c.format, m)) }, timeoutMs);
}

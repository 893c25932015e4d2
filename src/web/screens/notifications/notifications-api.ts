import { request } from '../../api.ts';

// The shapes of GET/PUT /api/notifications and POST /api/notifications/test (API.md, issue 15).
export type ChannelKind = 'push' | 'webhook' | 'email';
export type WebhookFormat = 'generic' | 'slack' | 'discord' | 'matrix';
export type SmtpSecurity = 'starttls' | 'tls' | 'none';

export interface DeliveryT {
  at: string;
  kind: string;
  ok: boolean;
  status?: number;
  error?: string;
}

export interface ChannelT {
  id: string;
  kind: ChannelKind;
  enabled: boolean;
  name?: string;
  url?: string;
  format?: WebhookFormat;
  has_token?: boolean;
  smtp?: { host: string; port: number; security: SmtpSecurity; username: string; has_password: boolean; from: string; to: string };
  history: DeliveryT[];
}

export interface NotificationsT {
  channels: ChannelT[];
  rules: Record<string, string[]>;
  kinds: string[];
  stuck_after_minutes: number;
}

export interface ChannelInput {
  id: string;
  kind: ChannelKind;
  enabled: boolean;
  name?: string;
  url?: string;
  format?: WebhookFormat;
  token?: string;
  smtp?: { host: string; port: number; security: SmtpSecurity; username: string; password?: string; from: string; to: string };
}

export interface NotificationsUpdateT {
  channels: ChannelInput[];
  rules: Record<string, string[]>;
}

export interface TestResultT {
  channel: string;
  kind: string;
  ok: boolean;
  status?: number;
  error?: string;
}

export const getNotifications = (): Promise<NotificationsT> => request<NotificationsT>('GET', '/api/notifications');

/** PUT: saves channels and rules; an empty token or password keeps the stored one. */
export const saveNotifications = (body: NotificationsUpdateT): Promise<NotificationsT> => request<NotificationsT>('PUT', '/api/notifications', body);

/** POST test: saves the same body first, then sends one test message to every enabled channel. */
export const testNotifications = (body: NotificationsUpdateT): Promise<{ results: TestResultT[] }> =>
  request<{ results: TestResultT[] }>('POST', '/api/notifications/test', body);

import type { z } from 'zod';
import type {
  CHANNEL_KINDS,
  ChannelT,
  DeliveryT,
  NotificationsT,
  NotificationsUpdateIn,
  SMTP_SECURITY,
  TestResult,
  TestResultsT,
  WEBHOOK_FORMATS,
} from '../../../shared/notifications.ts';
import { request } from '../../api.ts';

export type { ChannelT, DeliveryT, NotificationsT };
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];
export type SmtpSecurity = (typeof SMTP_SECURITY)[number];
export type TestResultT = z.infer<typeof TestResult>;
/** What the form sends: secrets only when typed, an empty one keeps the stored value. */
export type NotificationsUpdateT = NotificationsUpdateIn;
export type ChannelInput = NotificationsUpdateIn['channels'][number];

export const getNotifications = (): Promise<NotificationsT> => request<NotificationsT>('GET', '/api/notifications');

/** PUT: saves channels and rules; answers what GET answers. */
export const saveNotifications = (body: NotificationsUpdateT): Promise<NotificationsT> => request<NotificationsT>('PUT', '/api/notifications', body);

/** POST test: saves the same body first, then sends one test message to every enabled channel. */
export const testNotifications = (body: NotificationsUpdateT): Promise<TestResultsT> => request<TestResultsT>('POST', '/api/notifications/test', body);

import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import fetch from 'node-fetch';
import type { Secret } from '../api/index.js';
import type { OrderActivities } from './types.js';

export const SIGNATURE_HEADER = 'x-mve-signature';
export const TIMESTAMP_HEADER = 'x-mve-timestamp';

/**
 * The signature a ticket system checks: `v1=` + hex HMAC-SHA256 over `<timestamp>.<body>`, keyed with the
 * shared callback secret. Signing the timestamp lets the receiver refuse replays of old notifications.
 */
export function signNotification(secret: Secret, timestamp: string, body: string): string {
  return `v1=${createHmac('sha256', secret.reveal()).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface NotifyDeps {
  /** Undefined: callbacks are refused (a notification is never sent unsigned). */
  callbackSecret: Secret | undefined;
  timeoutMs: number;
  now: () => number;
}

/** POSTs one order change to the ticket system. 5xx, 408, 429 and network errors are retried by Temporal. */
export function createNotifyActivity(deps: NotifyDeps): Pick<OrderActivities, 'notifyTicketSystem'> {
  return {
    async notifyTicketSystem({ callbackUrl, notification }) {
      if (!deps.callbackSecret) {
        throw ApplicationFailure.nonRetryable(
          'MVE_CALLBACK_SECRET is not set, so ticket-system callbacks cannot be signed and are not sent',
          'CallbackNotConfigured',
        );
      }
      const body = JSON.stringify(notification);
      const timestamp = String(Math.floor(deps.now() / 1000));
      let status: number;
      try {
        const response = await fetch(callbackUrl, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            [TIMESTAMP_HEADER]: timestamp,
            [SIGNATURE_HEADER]: signNotification(deps.callbackSecret, timestamp, body),
          },
          body,
          signal: AbortSignal.timeout(deps.timeoutMs),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch (error) {
        throw ApplicationFailure.retryable(
          `the ticket system at ${new URL(callbackUrl).origin} could not be reached: ${(error as Error).message}`,
          'CallbackUnreachable',
        );
      }
      if (status >= 200 && status < 300) return;
      const retrying = status >= 500 || status === 408 || status === 429;
      throw ApplicationFailure.create({
        message: `the ticket system answered ${status} to notification ${notification.seq}`,
        type: 'CallbackRefused',
        nonRetryable: !retrying,
      });
    },
  };
}

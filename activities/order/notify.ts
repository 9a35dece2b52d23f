import { createHmac } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import fetch from 'node-fetch';
import type { Secret } from '../../infra/ordering-api/index.js';
import { callbackAgent, checkCallbackUrl, CallbackPolicyError, type CallbackPolicy } from './callback-policy.js';
import { isRecord } from '../../domain/index.js';
import type { Repository } from '../../infra/db/index.js';
import type { OrderActivities } from '../../workflows/order/activity-types.js';
import { currentRun } from './order-requests.js';
import { recordedNotification } from './ticket-notification.js';

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
  /** Where callbacks may go (https, no internal addresses unless allowed, no redirects). */
  callbackPolicy: CallbackPolicy;
  now: () => number;
}

/** Who a signed POST goes to, as failures name it (e.g. "the ticket system", "the approvers' webhook"). */
export interface SignedPostTarget {
  /** Names the receiver in messages, e.g. "the ticket system". */
  receiver: string;
  /** Names what was sent in messages, e.g. "notification 3". */
  what: string;
}

/**
 * POSTs a JSON body signed with the callback secret (headers {@link TIMESTAMP_HEADER} and {@link SIGNATURE_HEADER}),
 * only where the callback policy allows and without following redirects. The one signed sender: ticket-system
 * callbacks and approver messages both go through it. 5xx, 408, 429 and network errors are thrown retryable; a
 * URL the policy refuses, a redirect or another 4xx non-retryable (types `CallbackRefusedByPolicy`,
 * `CallbackUnreachable`, `CallbackRedirected`, `CallbackRefused`).
 */
export async function postSigned(
  deps: NotifyDeps & { callbackSecret: Secret },
  target: string | URL,
  payload: unknown,
  describe: SignedPostTarget,
): Promise<void> {
  const url = new URL(target);
  try {
    checkCallbackUrl(deps.callbackPolicy, url);
  } catch (error) {
    throw ApplicationFailure.nonRetryable((error as Error).message, 'CallbackRefusedByPolicy');
  }
  const body = JSON.stringify(payload);
  const timestamp = String(Math.floor(deps.now() / 1000));
  let status: number;
  let location: string | null = null;
  try {
    const response = await fetch(url, {
      method: 'POST',
      agent: callbackAgent(deps.callbackPolicy, url),
      redirect: 'manual',
      headers: {
        'content-type': 'application/json',
        [TIMESTAMP_HEADER]: timestamp,
        [SIGNATURE_HEADER]: signNotification(deps.callbackSecret, timestamp, body),
      },
      body,
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    status = response.status;
    location = response.headers.get('location');
    await response.arrayBuffer();
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    if (cause instanceof CallbackPolicyError || (error as { code?: string }).code === 'ECALLBACKPOLICY') {
      throw ApplicationFailure.nonRetryable((cause as Error).message, 'CallbackRefusedByPolicy');
    }
    throw ApplicationFailure.retryable(
      `${describe.receiver} at ${url.origin} could not be reached: ${(error as Error).message}`,
      'CallbackUnreachable',
    );
  }
  if (status >= 200 && status < 300) return;
  if (status >= 300 && status < 400) {
    throw ApplicationFailure.nonRetryable(
      `${describe.receiver} answered a redirect (${status}${location ? ` to ${location}` : ''}); callbacks do not follow redirects: give the final URL`,
      'CallbackRedirected',
    );
  }
  const retrying = status >= 500 || status === 408 || status === 429;
  throw ApplicationFailure.create({
    message: `${describe.receiver} answered ${status} to ${describe.what}`,
    type: 'CallbackRefused',
    nonRetryable: !retrying,
  });
}

export interface TicketNotifyDeps extends NotifyDeps {
  /** Where notifications come from: the order's records, never the activity's input. */
  repository: Pick<Repository, 'getOrder'>;
}

/**
 * POSTs one order change to the ticket system: the change its input names (by journal sequence number) of the order
 * of the activity's own workflow, as the records tell it, to the callback URL the records hold. A change the records
 * do not show yet is retried (the journal is written as the order goes); no callback URL, or a note the order did not
 * tell, sends nothing. 5xx, 408, 429 and network errors are retried by Temporal; a URL the callback policy refuses, a
 * redirect or another 4xx is not.
 */
export function createNotifyActivity(deps: TicketNotifyDeps): Pick<OrderActivities, 'notifyTicketSystem'> {
  return {
    async notifyTicketSystem(input: unknown) {
      const callbackSecret = deps.callbackSecret;
      if (!callbackSecret) {
        throw ApplicationFailure.nonRetryable(
          'MVE_CALLBACK_SECRET is not set, so ticket-system callbacks cannot be signed and are not sent',
          'CallbackNotConfigured',
        );
      }
      const { workflowId } = currentRun();
      const seq = changeNamed(input);
      const view = await deps.repository.getOrder(workflowId);
      if (!view) throw notYet(`no order is recorded as ${workflowId} yet`);
      const told = recordedNotification(workflowId, view, seq);
      if ('notYet' in told) throw notYet(told.notYet);
      if ('nothing' in told) return;
      await postSigned({ ...deps, callbackSecret }, told.send.callbackUrl, told.send.notification, {
        receiver: 'the ticket system',
        what: `notification ${seq}`,
      });
    },
  };
}

/**
 * The journal sequence number the input names. An input of a workflow from before notifications were read from the
 * records carries the whole notification and its URL (`{ callbackUrl, notification }`), and an activity is retried
 * with the input it was scheduled with: it names the change of its notification's `seq`, and its URL and text are
 * ignored like any other field (anyone who reaches Temporal can write them).
 */
function changeNamed(input: unknown): number {
  const seq = isRecord(input)
    ? (input['seq'] ?? (isRecord(input['notification']) ? input['notification']['seq'] : undefined))
    : undefined;
  if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 1) return seq;
  throw ApplicationFailure.nonRetryable(
    'a ticket-system notification names the change it tells by its journal sequence number (seq, an integer from 1)',
    'InvalidNotificationInput',
  );
}

/** The records are behind the workflow (its journal is written as it goes): retried, never sent as something else. */
function notYet(message: string): ApplicationFailure {
  return ApplicationFailure.retryable(message, 'NotificationNotRecordedYet');
}
